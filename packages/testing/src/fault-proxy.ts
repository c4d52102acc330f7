// A TCP proxy that cuts SMTP sessions at the worst moment (RFC 1047): right after it has
// forwarded the end of a message's DATA (`\r\n.\r\n`) to the server, before the server's reply
// can come back. The server has the message (and answers 250 into a closed socket); the client
// sees its connection die and cannot know — the one window where at-least-once means a duplicate.
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FaultProxyOptions {
  /** Where the proxy forwards to (a function is asked at every connection). */
  target: { host: string; port: number } | (() => { host: string; port: number });
  /** Called for every message end seen (1, 2, 3…); true cuts that session. */
  cutMessage: (n: number) => boolean;
}

export interface FaultProxy {
  /** `smtp://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Message ends seen so far, and how many of those sessions were cut. */
  stats(): { messages: number; cuts: number };
  stop(): Promise<void>;
}

const END_OF_DATA = Buffer.from('\r\n.\r\n');

export async function startFaultProxy(opts: FaultProxyOptions): Promise<FaultProxy> {
  let messages = 0;
  let cuts = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const target = typeof opts.target === 'function' ? opts.target() : opts.target;
    const upstream = net.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('end', () => client.end());
    // The last 4 bytes of the previous chunk, so an end of DATA split across chunks is seen
    // (and one wholly inside the previous chunk is not seen twice: it needs 5 bytes).
    let tail = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      const seen = Buffer.concat([tail, chunk]);
      let from = 0;
      let cut = false;
      for (let i = seen.indexOf(END_OF_DATA, from); i >= 0; i = seen.indexOf(END_OF_DATA, from)) {
        from = i + END_OF_DATA.length;
        messages += 1;
        if (opts.cutMessage(messages)) cut = true;
      }
      tail = seen.subarray(Math.max(0, seen.length - (END_OF_DATA.length - 1)));
      if (!cut) {
        upstream.write(chunk);
        return;
      }
      cuts += 1;
      // The server gets the whole message (and will answer 250 to nobody); the client is cut off.
      upstream.end(chunk);
      client.destroy();
    });
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    stats: () => ({ messages, cuts }),
    async stop() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
