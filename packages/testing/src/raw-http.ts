/**
 * A raw HTTP/1.1 client on a TCP socket, for what fetch cannot do: send part of a request (some
 * headers, a body shorter than its Content-Length) and see how the server answers a client that
 * stalls.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface RawHttpClient {
  socket: Socket;
  /** The first `HTTP/1.1 <code> <reason>` line received at or after byte `from` of the stream. */
  statusLine(from?: number): Promise<string>;
  close(): void;
}

export async function rawHttpClient(port: number, host = '127.0.0.1'): Promise<RawHttpClient> {
  const socket = connect(port, host);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  return {
    socket,
    async statusLine(from = 0) {
      for (;;) {
        const match = /HTTP\/1\.1 \d{3}[^\r]*/.exec(received.slice(from));
        if (match) return match[0];
        if (socket.destroyed || socket.readableEnded)
          throw new Error(`connection closed after ${JSON.stringify(received)}`);
        await Promise.race([once(socket, 'data'), once(socket, 'close'), once(socket, 'end')]);
      }
    },
    close: () => void socket.destroy(),
  };
}
