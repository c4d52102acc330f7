import { connect } from 'node:net';

/** One PING over a raw socket: true on `+PONG`, false on refusal, `-LOADING`, or silence. */
export function pingRedis(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const finish = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

/**
 * Polls PING until Redis answers. `gaveUp()` lets the caller stop early (the process died)
 * by returning a reason.
 */
export async function waitForRedis(
  host: string,
  port: number,
  { timeoutMs = 15_000, gaveUp }: { timeoutMs?: number; gaveUp?: () => string | undefined } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await pingRedis(host, port)) return;
    const reason = gaveUp?.();
    if (reason) throw new Error(reason);
    if (Date.now() > deadline)
      throw new Error(`Redis at ${host}:${port} did not answer PING within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
