import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { waitUntil } from './wait.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A TCP server that records what it receives and answers "250" to each end of data. */
async function recorder(): Promise<{ port: number; received: () => string }> {
  let got = '';
  const server = net.createServer((s) =>
    s.on('data', (d: Buffer) => {
      got += d.toString();
      if (got.endsWith('\r\n.\r\n')) s.write('250 ok\r\n');
    }),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
  return { port: (server.address() as AddressInfo).port, received: () => got };
}

async function client(proxy: FaultProxy) {
  const sock = net.connect(proxy.port, '127.0.0.1');
  await new Promise<void>((r) => sock.once('connect', () => r()));
  let got = '';
  let closed = false;
  sock.on('data', (d: Buffer) => (got += d.toString()));
  sock.on('close', () => (closed = true));
  sock.on('error', () => undefined);
  return { sock, got: () => got, closed: () => closed };
}

describe('startFaultProxy', () => {
  it('forwards both ways and counts an end of DATA split across writes once', async () => {
    const up = await recorder();
    const proxy = await startFaultProxy({
      target: { host: '127.0.0.1', port: up.port },
      cutMessage: () => false,
    });
    cleanups.push(() => proxy.stop());
    const c = await client(proxy);
    c.sock.write('line one\r\n.');
    // the first part through the proxy before the second is written: two reads there, not one
    await waitUntil(() => up.received().endsWith('line one\r\n.'));
    c.sock.write('\r\n');
    await waitUntil(() => c.got().includes('250 ok'));
    expect(proxy.stats()).toEqual({ messages: 1, cuts: 0 });
    c.sock.destroy();
  });

  it('cuts the chosen message: the server gets all of it, the client only a closed socket', async () => {
    const up = await recorder();
    const proxy = await startFaultProxy({
      target: { host: '127.0.0.1', port: up.port },
      cutMessage: (n) => n === 1,
    });
    cleanups.push(() => proxy.stop());
    const c = await client(proxy);
    c.sock.write('body\r\n..dot-stuffed\r\n.\r\n');
    await waitUntil(() => c.closed());
    await waitUntil(() => up.received().endsWith('\r\n.\r\n'));
    expect(up.received()).toBe('body\r\n..dot-stuffed\r\n.\r\n');
    expect(c.got()).toBe('');
    expect(proxy.stats()).toEqual({ messages: 1, cuts: 1 });
  });
});
