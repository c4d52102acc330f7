/**
 * MTA-STS policy discovery (RFC 8461 section 3) against a real local DNS server and a real HTTPS
 * policy server whose certificate a test CA issued: the cache by max_age and TXT id, and every
 * way a fetch is refused (a redirect, another media type, an untrusted certificate, a policy
 * that does not parse) with the TLS-RPT result type it reports.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createTestCa,
  selfSignedCertificate,
  startDnsServer,
  type TestCa,
  type TestDnsServer,
} from '@petrel/testing';
import { createDirectDns } from './dns.js';
import { createMtaSts, stsTxt, type MtaSts } from './mta-sts.js';

const POLICY = 'version: STSv1\r\nmode: enforce\r\nmx: *.mx.a.test\r\nmax_age: 600\r\n';

let dns: TestDnsServer;
let ca: TestCa;
let good: Server;
let untrusted: Server;
let goodPort = 0;
let untrustedPort = 0;
/** What the policy server answers next, and how often it was asked. */
let answer: { status: number; type: string; body: string; location?: string };
let fetched = 0;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

beforeAll(async () => {
  dns = await startDnsServer();
  ca = await createTestCa();
  const handler: Parameters<typeof createServer>[1] = (req, res) => {
    fetched += 1;
    expect(req.url).toBe('/.well-known/mta-sts.txt');
    res.writeHead(answer.status, {
      'content-type': answer.type,
      ...(answer.location && { location: answer.location }),
    });
    res.end(answer.body);
  };
  good = createServer(await ca.issue(['mta-sts.a.test']), handler);
  untrusted = createServer(await selfSignedCertificate(['mta-sts.a.test']), handler);
  [goodPort, untrustedPort] = await Promise.all([listen(good), listen(untrusted)]);
});

afterAll(async () => {
  await Promise.all([
    dns?.stop(),
    new Promise((r) => (good ? good.close(r) : r(undefined))),
    new Promise((r) => (untrusted ? untrusted.close(r) : r(undefined))),
  ]);
});

let now = 1_000_000;
function sts(port = goodPort): MtaSts {
  // no DNS cache: each lookup sees the records as the test left them
  return createMtaSts({
    dns: createDirectDns({ servers: [dns.address], mxTtlMs: 0, timeoutMs: 1_000, tries: 1 }),
    httpsPort: port,
    extraCa: ca.cert,
    timeoutMs: 5_000,
    clock: { now: () => now },
  });
}

beforeEach(() => {
  dns.clear();
  dns.set('_mta-sts.a.test', 'TXT', ['v=STSv1; id=one']);
  dns.set('mta-sts.a.test', 'A', ['127.0.0.1']);
  answer = { status: 200, type: 'text/plain; charset=utf-8', body: POLICY };
  fetched = 0;
  now = 1_000_000;
});

describe('stsTxt (RFC 8461 section 3.1)', () => {
  it('reads the id of exactly one STSv1 record', () => {
    expect(stsTxt(['v=spf1 -all', 'v=STSv1; id=20260101T000000'])).toEqual({
      kind: 'id',
      id: '20260101T000000',
    });
    expect(stsTxt(['v=STSv1; id=a', 'v=STSv1; id=b'])).toEqual({ kind: 'none' });
    expect(stsTxt(['v=STSv1;'])).toEqual({ kind: 'none' });
    expect(stsTxt(['v=STSv1; id=has-dash'])).toEqual({ kind: 'none' });
  });
});

describe('createMtaSts', () => {
  it('fetches a policy once per max_age, again when the TXT id changes or the policy expired', async () => {
    const m = sts();
    const first = await m.lookup('a.test');
    expect(first.policy).toMatchObject({ id: 'one', mode: 'enforce', mx: ['*.mx.a.test'], maxAgeS: 600 });
    expect(first.policy?.lines).toEqual([
      'version: STSv1',
      'mode: enforce',
      'mx: *.mx.a.test',
      'max_age: 600',
    ]);
    await Promise.all([m.lookup('a.test'), m.lookup('A.test')]);
    expect(fetched).toBe(1);

    dns.set('_mta-sts.a.test', 'TXT', ['v=STSv1; id=two']);
    expect((await m.lookup('a.test')).policy?.id).toBe('two');
    expect(fetched).toBe(2);

    now += 600_000;
    await m.lookup('a.test');
    expect(fetched).toBe(3);
  });

  it('shares one fetch between concurrent deliveries', async () => {
    const m = sts();
    const all = await Promise.all(Array.from({ length: 5 }, () => m.lookup('a.test')));
    expect(all.every((l) => l.policy?.id === 'one')).toBe(true);
    expect(fetched).toBe(1);
  });

  it('keeps a fresh policy when the TXT record goes, and has none once it expired', async () => {
    const m = sts();
    await m.lookup('a.test');
    dns.remove('_mta-sts.a.test');
    expect((await m.lookup('a.test')).policy?.id).toBe('one');
    now += 600_000;
    expect(await m.lookup('a.test')).toEqual({});
  });

  it('keeps the cached policy when a refresh fails, and reports the failure', async () => {
    const m = sts();
    await m.lookup('a.test');
    dns.set('_mta-sts.a.test', 'TXT', ['v=STSv1; id=two']);
    answer = { status: 500, type: 'text/plain', body: 'oops' };
    const after = await m.lookup('a.test');
    expect(after.policy?.id).toBe('one');
    expect(after.failure?.resultType).toBe('sts-policy-fetch-error');
  });

  it('has no policy without a TXT record, and asks no server', async () => {
    dns.remove('_mta-sts.a.test');
    expect(await sts().lookup('a.test')).toEqual({});
    expect(fetched).toBe(0);
  });

  it('does not follow a redirect (RFC 8461 section 3.3)', async () => {
    answer = { status: 301, type: 'text/plain', body: '', location: 'https://elsewhere.test/policy' };
    const result = await sts().lookup('a.test');
    expect(result.policy).toBeUndefined();
    expect(result.failure).toMatchObject({ resultType: 'sts-policy-fetch-error' });
    expect(result.failure?.detail).toContain('HTTP 301');
  });

  it('refuses another media type and a policy that does not parse', async () => {
    answer = { status: 200, type: 'text/html', body: POLICY };
    expect((await sts().lookup('a.test')).failure?.resultType).toBe('sts-policy-invalid');
    answer = {
      status: 200,
      type: 'text/plain',
      body: 'version: STSv1\r\nmode: sometimes\r\nmax_age: 60\r\n',
    };
    const bad = await sts().lookup('a.test');
    expect(bad.policy).toBeUndefined();
    expect(bad.failure?.resultType).toBe('sts-policy-invalid');
  });

  it('refuses a policy host whose certificate the web PKI (here the test CA) does not vouch for', async () => {
    const result = await sts(untrustedPort).lookup('a.test');
    expect(result.policy).toBeUndefined();
    expect(result.failure?.resultType).toBe('sts-webpki-invalid');
    expect(fetched).toBe(0);
  });

  it('applies no policy in mode none', async () => {
    answer = { status: 200, type: 'text/plain', body: 'version: STSv1\r\nmode: none\r\nmax_age: 60\r\n' };
    expect(await sts().lookup('a.test')).toEqual({});
  });
});
