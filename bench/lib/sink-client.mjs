// Starts bench/lib/sink.mjs in its own process and talks to it over IPC.
import { fileURLToPath } from 'node:url';
import { forkNode } from './proc.mjs';
import { sleep, now } from './util.mjs';

const SINK = fileURLToPath(new URL('./sink.mjs', import.meta.url));

export async function startSink() {
  const child = forkNode('sink', SINK);
  const pending = new Map();
  let nextId = 1;
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`SMTP sink not ready after 10 s\n${child.tail()}`)),
      10_000,
    );
    child.proc.on('message', (msg) => {
      if (msg?.ready) {
        clearTimeout(timer);
        resolve(msg.port);
        return;
      }
      const p = pending.get(msg?.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`sink: ${msg.error}`));
      else p.resolve(msg.result);
    });
    child.exited.then(({ code, signal }) => {
      clearTimeout(timer);
      const err = new Error(`SMTP sink exited (${code ?? signal})\n${child.tail()}`);
      reject(err);
      for (const p of pending.values()) p.reject(err);
      pending.clear();
    });
  });

  const call = (cmd, args) =>
    new Promise((resolve, reject) => {
      child.assertAlive();
      const id = nextId++;
      pending.set(id, { resolve, reject });
      child.proc.send({ id, cmd, args });
    });

  return {
    port,
    pid: child.pid,
    child,
    url: `smtp://127.0.0.1:${port}`,
    stats: () => call('stats'),
    summary: (args) => call('summary', args),
    reset: () => call('reset'),
    /** Realistic answers (sink-decision.mjs) on or off: { realistic, seed }. */
    mode: (args) => call('mode', args),
    /** Realistic mode: Message-ID → the answers its attempts got. */
    attempts: () => call('attempts'),
    /** Realistic mode: Message-ID → when its first attempt was answered (epoch ms). */
    firstAttempts: () => call('firstAttempts'),
    /** Every message answered 250, in order: { ids, times } (Message-ID, receive epoch ms). */
    received: () => call('received'),

    /**
     * Polls until the sink holds `count` messages. `onTick(stats)` runs at every poll (the CPU
     * sampler hooks in there). Fails when nothing arrives for `stallMs`, or when a watched child
     * process dies.
     */
    async waitFor(count, { stallMs = 30_000, intervalMs = 100, onTick, watch = [] } = {}) {
      let last = -1;
      let lastChange = now();
      for (;;) {
        const s = await call('stats');
        if (onTick) await onTick(s);
        if (s.count >= count) return s;
        for (const c of watch) c.assertAlive();
        if (s.count !== last) {
          last = s.count;
          lastChange = now();
        } else if (now() - lastChange > stallMs) {
          throw new Error(`sink stalled at ${s.count}/${count} messages for ${stallMs / 1000} s`);
        }
        await sleep(intervalMs);
      }
    },

    async stop() {
      await child.stop(3_000);
    },
  };
}
