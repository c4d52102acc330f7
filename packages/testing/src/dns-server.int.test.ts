import { Resolver } from 'node:dns/promises';
import dns2 from 'dns2';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDnsServer, type TestDnsServer } from './dns-server.js';

let server: TestDnsServer;
let resolver: Resolver;

beforeAll(async () => {
  server = await startDnsServer();
  resolver = new Resolver({ timeout: 500, tries: 1 });
  resolver.setServers([server.address]);
});
afterAll(() => server.stop());
beforeEach(() => server.clear());

const code = (promise: Promise<unknown>) =>
  promise.then(
    () => 'resolved',
    (error: NodeJS.ErrnoException) => error.code,
  );

describe('startDnsServer', () => {
  it('answers TXT, MX, A, AAAA and CNAME records set at run time', async () => {
    server.add({ name: 'example.test', type: 'TXT', value: 'v=spf1 -all' });
    server.add({ name: 'Example.test.', type: 'MX', value: 'mx.example.test', priority: 5 });
    server.add({ name: 'mx.example.test', type: 'A', value: '192.0.2.7' });
    server.add({ name: 'mx.example.test', type: 'AAAA', value: '2001:db8::7' });
    server.add({ name: 'www.example.test', type: 'CNAME', value: 'mx.example.test' });

    expect(await resolver.resolveTxt('EXAMPLE.test')).toEqual([['v=spf1 -all']]);
    expect(await resolver.resolveMx('example.test')).toEqual([{ exchange: 'mx.example.test', priority: 5 }]);
    expect(await resolver.resolve4('mx.example.test')).toEqual(['192.0.2.7']);
    expect(await resolver.resolve6('mx.example.test')).toEqual(['2001:db8::7']);
    expect(await resolver.resolveCname('www.example.test')).toEqual(['mx.example.test']);
    // An A query on the alias follows the CNAME (RFC 1034 §3.6.2).
    expect(await resolver.resolve4('www.example.test')).toEqual(['192.0.2.7']);
  });

  it('splits a long TXT value into character-strings a resolver joins back', async () => {
    const key = `v=DKIM1; k=rsa; p=${'A'.repeat(392)}`;
    server.set('petrel._domainkey.example.test', 'TXT', [key]);
    const [chunks] = await resolver.resolveTxt('petrel._domainkey.example.test');
    expect(chunks!.length).toBeGreaterThan(1);
    expect(chunks!.join('')).toBe(key);
  });

  it('answers NXDOMAIN for unknown names and NODATA for known names without that type', async () => {
    server.add({ name: 'a.b.example.test', type: 'TXT', value: 'x' });
    expect(await code(resolver.resolveTxt('nothing.example.test'))).toBe('ENOTFOUND');
    expect(await code(resolver.resolveMx('a.b.example.test'))).toBe('ENODATA');
    // An empty non-terminal exists (RFC 8020): no data, not NXDOMAIN.
    expect(await code(resolver.resolveTxt('b.example.test'))).toBe('ENODATA');
  });

  it('removes records at run time and simulates SERVFAIL and timeouts', async () => {
    server.set('example.test', 'TXT', ['one', 'two']);
    server.remove('example.test', 'TXT', 'one');
    expect(await resolver.resolveTxt('example.test')).toEqual([['two']]);
    server.remove('example.test');
    expect(await code(resolver.resolveTxt('example.test'))).toBe('ENOTFOUND');

    server.add({ name: 'example.test', type: 'TXT', value: 'back' });
    server.fail('example.test', 'SERVFAIL');
    expect(await code(resolver.resolveTxt('example.test'))).toBe('ESERVFAIL');
    server.fail('example.test', 'timeout');
    expect(await code(resolver.resolveTxt('example.test'))).toBe('ETIMEOUT');
    server.clearFailure('example.test');
    expect(await resolver.resolveTxt('example.test')).toEqual([['back']]);
  });

  it('answers over TCP on the same port', async () => {
    server.add({ name: 'tcp.example.test', type: 'A', value: '192.0.2.9' });
    const resolve = dns2.TCPClient({ dns: server.host, port: server.port });
    const packet = await resolve('tcp.example.test', 'A');
    expect(packet.answers.map((a) => a.address)).toEqual(['192.0.2.9']);
    expect(packet.header.aa).toBe(1);
  });
});
