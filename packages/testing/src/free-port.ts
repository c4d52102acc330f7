import { createServer } from 'node:net';

/**
 * Asks the kernel for a free TCP port on 127.0.0.1 (listen on port 0, read it, close).
 * Another process may take the port before the caller binds it; callers that own the
 * listener should prefer binding port 0 themselves.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close((err) => (err ? reject(err) : resolve(port)));
    });
  });
}
