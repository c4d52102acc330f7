/**
 * The connection is cut right after the final dot, before the 250 comes
 * back (RFC 1047), for 1 message in 10: a TCP fault proxy between the workers and the sink.
 * Nothing is lost; duplicates are at most the cut messages, each a copy with the same
 * Message-ID (so downstream can dedupe); every email ends `delivered`, not bounced.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy, waitUntil, type FaultProxy } from '@petrel/testing';
import { email, startStack, type Stack } from './helpers.js';

let stack: Stack;
let proxy: FaultProxy;
let sinkPort = 0;

beforeAll(async () => {
  proxy = await startFaultProxy({
    target: () => ({ host: '127.0.0.1', port: sinkPort }),
    cutMessage: (n) => n % 10 === 0,
  });
  stack = await startStack({ env: { SMTP_URL: proxy.url } });
  sinkPort = stack.sink.port;
});
afterAll(async () => {
  await stack?.stop();
  await proxy?.stop();
});

describe('connection cut after the final dot (R10)', () => {
  it('nothing lost, duplicates ≤ cuts with the same Message-ID, every email delivered', async () => {
    const ids: string[] = [];
    for (let b = 0; b < 5; b++) {
      const res = await stack.resend.batch.send(
        Array.from({ length: 100 }, (_, i) => email(b * 100 + i)) as never,
      );
      expect(res.error).toBeNull();
      ids.push(...res.data!.data.map((d) => d.id));
    }
    const copies = (id: string) => stack.sink.byMessageId(`<${id}@acme.test>`).length;
    await waitUntil(() => ids.every((id) => copies(id) > 0), {
      timeoutMs: 60_000,
      message: 'every email at the sink',
    });
    // every email recorded `delivered` (a cut send is retried: delivery_delayed, then delivered)
    let pending = [...ids];
    await waitUntil(
      async () => {
        const still: string[] = [];
        for (const id of pending)
          if ((await stack.resend.emails.get(id)).data?.last_event !== 'delivered') still.push(id);
        pending = still;
        return pending.length === 0;
      },
      { timeoutMs: 30_000, intervalMs: 500, message: 'every email recorded delivered' },
    );
    const { cuts } = proxy.stats();
    const duplicates = stack.sink.messages.length - ids.length;
    console.log(
      `R10: ${ids.length} emails, ${cuts} sessions cut after the final dot, ${duplicates} duplicates`,
    );
    expect(cuts).toBeGreaterThanOrEqual(40);
    expect(duplicates).toBeGreaterThanOrEqual(1); // the window really was hit
    expect(duplicates).toBeLessThanOrEqual(cuts);
    // every copy at the sink is one of ours, and a duplicate carries the same Message-ID
    const known = new Set(ids.map((id) => `<${id}@acme.test>`));
    expect(stack.sink.messages.filter((m) => !known.has(m.parsed.messageId ?? ''))).toEqual([]);
  }, 120_000);
});
