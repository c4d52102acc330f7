/**
 * listenHttp over real sockets on 127.0.0.1: a stalled request is answered 408 once its timeout
 * has passed (not at Node's 300 s), the health server listens through it, and an idle
 * keep-alive connection outliving the headers timeout still serves its next request.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { rawHttpClient, type RawHttpClient } from '@petrel/testing';
import { connectionsCheckingInterval, listenHttp, type HttpServerTimeouts } from './http-server.js';
import { startHealthServer } from './health-server.js';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

const timeouts = (request: number, headers: number, keepAlive = 65_000): HttpServerTimeouts => ({
  HTTP_REQUEST_TIMEOUT_MS: request,
  HTTP_HEADERS_TIMEOUT_MS: headers,
  HTTP_KEEPALIVE_TIMEOUT_MS: keepAlive,
});

/** A raw client on 127.0.0.1:`port`, closed after the test. */
async function rawClient(port: number): Promise<RawHttpClient> {
  const client = await rawHttpClient(port);
  closers.push(async () => client.close());
  return client;
}

describe('listenHttp', () => {
  it('answers 408 to a body that stops coming, no earlier than HTTP_REQUEST_TIMEOUT_MS', async () => {
    // reads the whole body before answering, as the API's JSON parser does
    const { server, port } = await listenHttp(
      (req, res) => void req.resume().on('end', () => res.end('never')),
      {
        port: 0,
        host: '127.0.0.1',
        timeouts: timeouts(1_500, 1_000),
      },
    );
    closers.push(() => new Promise((r) => server.close(r)));
    const client = await rawClient(port);
    const started = performance.now();
    client.socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n1234567');
    expect(await client.statusLine()).toBe('HTTP/1.1 408 Request Timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_500);
  });

  it('keeps an idle keep-alive connection past the headers timeout: its next request is served', async () => {
    const { server, port } = await listenHttp((_req, res) => res.end('ok'), {
      port: 0,
      host: '127.0.0.1',
      timeouts: timeouts(1_000, 1_000, 30_000),
    });
    closers.push(() => new Promise((r) => server.close(r)));
    const client = await rawClient(port);
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await client.statusLine()).toBe('HTTP/1.1 200 OK');
    // idle for longer than the headers timeout plus a few of Node's sweeps (the point of the test)
    await new Promise((r) => setTimeout(r, 1_000 + 3 * connectionsCheckingInterval(timeouts(1_000, 1_000))));
    const mark = 'HTTP/1.1 200 OK'.length;
    client.socket.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await client.statusLine(mark)).toBe('HTTP/1.1 200 OK');
  });

  it('checks timeouts every tenth of the shortest one (Node sweeps every 30 s by default)', () => {
    expect(connectionsCheckingInterval(timeouts(60_000, 15_000))).toBe(1_500);
    expect(connectionsCheckingInterval(timeouts(2_000, 2_000))).toBe(200);
    expect(connectionsCheckingInterval(timeouts(1_000, 1_000))).toBe(100);
  });
});

describe('the health server', () => {
  it('listens with the configured timeouts: stalled headers get 408 after HTTP_HEADERS_TIMEOUT_MS', async () => {
    const health = await startHealthServer({
      port: 0,
      ready: async () => true,
      timeouts: timeouts(2_000, 1_000),
    });
    closers.push(() => health.close());
    const client = await rawClient(health.port);
    const started = performance.now();
    client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    expect(await client.statusLine()).toBe('HTTP/1.1 408 Request Timeout');
    expect(performance.now() - started).toBeGreaterThanOrEqual(1_000);
  });
});
