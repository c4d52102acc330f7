/**
 * Direct delivery against real SMTP sinks and a real (local, authoritative) DNS server. The MX
 * hosts are distinct loopback addresses on one port (127.0.0.2, 127.0.0.3… reach `lo` on
 * Linux), since every MX is reached on DIRECT_SMTP_PORT.
 */
import type { AddressInfo } from 'node:net';
import selfsigned from 'selfsigned';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startDnsServer, startSmtpSink, waitUntil, type SmtpSink, type TestDnsServer } from '@petrel/testing';
import type { SendResult } from '../classify.js';
import type { OutgoingMessage } from '../transport.js';
import { createDirectDns } from './dns.js';
import {
  createDirectSender,
  type DirectObserver,
  type DirectSender,
  type DirectSenderOptions,
} from './direct-sender.js';
import type { DeferralReason } from './outcome.js';

let dns: TestDnsServer;
/** The MX that answers, on 127.0.0.3; 127.0.0.2 listens on nothing (a host that is down). */
let mx: SmtpSink;
const senders: DirectSender[] = [];

beforeAll(async () => {
  dns = await startDnsServer();
  mx = await startSmtpSink({ host: '127.0.0.3' });
});

afterAll(async () => {
  await Promise.all([dns?.stop(), mx?.stop()]);
});

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  mx.clear();
  dns.clear();
});

interface Observed extends DirectObserver {
  limits: { destination: string; limit: number }[];
  deferrals: { destination: string; reason: DeferralReason }[];
  forgotten: string[];
}

function observer(): Observed {
  const o: Observed = {
    limits: [],
    deferrals: [],
    forgotten: [],
    limit: (destination, limit) => o.limits.push({ destination, limit }),
    deferral: (destination, reason) => o.deferrals.push({ destination, reason }),
    forget: (destination) => o.forgotten.push(destination),
  };
  return o;
}

function sender(extra: Partial<DirectSenderOptions> = {}): DirectSender {
  const s = createDirectSender({
    dns: createDirectDns({ servers: [dns.address], mxTtlMs: 60_000, timeoutMs: 1_000, tries: 1 }),
    port: mx.port,
    maxConnectionsPerHost: 4,
    recoverAfter: 5,
    maxPools: 20,
    poolIdleMs: 60_000,
    slotWaitMs: 10_000,
    connectionTimeoutMs: 3_000,
    socketTimeoutMs: 5_000,
    heloName: 'mta.petrel.test',
    ...extra,
  });
  senders.push(s);
  return s;
}

let seq = 0;
function message(to: string[], extra: Partial<OutgoingMessage> = {}): OutgoingMessage {
  const id = `<direct-${++seq}-${Date.now()}@petrel.test>`;
  const raw = Buffer.from(
    `From: sender@petrel.test\r\nTo: ${to.join(', ')}\r\nSubject: direct ${seq}\r\nMessage-ID: ${id}\r\n\r\nhello\r\n`,
  );
  return { raw, envelope: { from: 'sender@petrel.test', to }, messageId: id, ...extra };
}

/** The retry ladder, compressed: send again until the result is not a soft fail. */
async function untilSettled(s: DirectSender, msg: OutgoingMessage, maxAttempts = 40): Promise<SendResult[]> {
  const results: SendResult[] = [];
  for (let i = 0; i < maxAttempts; i++) {
    const r = await s.send(msg);
    results.push(r);
    if (r.kind !== 'soft_fail') return results;
  }
  return results;
}

describe('direct delivery', () => {
  it('delivers to the next MX host when the preferred one is down, and cuts the down one', async () => {
    dns.add({ name: 'two-mx.test', type: 'MX', value: 'mx1.two-mx.test', priority: 10 });
    dns.add({ name: 'two-mx.test', type: 'MX', value: 'mx2.two-mx.test', priority: 20 });
    dns.add({ name: 'mx1.two-mx.test', type: 'A', value: '127.0.0.2' });
    dns.add({ name: 'mx2.two-mx.test', type: 'A', value: '127.0.0.3' });
    const seen = observer();
    const s = sender({ observer: seen });

    const msg = message(['someone@two-mx.test']);
    const result = await s.send(msg);

    expect(result).toMatchObject({ kind: 'sent', code: 250 });
    const [received] = await mx.waitFor(1);
    expect(received?.envelope.to).toEqual(['someone@two-mx.test']);
    expect(mx.byMessageId(msg.messageId!)).toHaveLength(1);
    // the refused connection told mx1 to slow down; mx2 is untouched
    expect(seen.deferrals).toEqual([{ destination: 'mx1.two-mx.test', reason: 'connection' }]);
    expect(s.limitOf('mx1.two-mx.test')).toBe(2);
    expect(s.limitOf('mx2.two-mx.test')).toBe(4);
  });

  it('falls back to the A record of a domain without MX, one transaction per recipient domain', async () => {
    dns.add({ name: 'plain.test', type: 'A', value: '127.0.0.3' });
    dns.add({ name: 'other.test', type: 'MX', value: 'mx.other.test', priority: 5 });
    dns.add({ name: 'mx.other.test', type: 'A', value: '127.0.0.3' });
    const s = sender();

    const result = await s.send(message(['a@plain.test', 'b@other.test', 'c@Plain.test']));

    expect(result).toMatchObject({ kind: 'sent' });
    const received = await mx.waitFor(2);
    expect(received.map((m) => m.envelope.to).sort()).toEqual([
      ['a@plain.test', 'c@Plain.test'],
      ['b@other.test'],
    ]);
  });

  it('reports the recipients of a failed domain as refused while the others are delivered', async () => {
    dns.add({ name: 'ok.test', type: 'A', value: '127.0.0.3' });
    dns.add({ name: 'nomail.test', type: 'MX', value: '.', priority: 0 });
    const s = sender();

    const result = await s.send(message(['a@ok.test', 'b@nomail.test']));

    expect(result).toMatchObject({
      kind: 'sent',
      rejected: [{ address: 'b@nomail.test', code: 556, enhancedCode: '5.1.10', permanent: true }],
    });
    expect((await mx.waitFor(1))[0]?.envelope.to).toEqual(['a@ok.test']);
  });

  it('bounces a domain with a null MX (RFC 7505) or no DNS entry, defers a failing lookup', async () => {
    dns.add({ name: 'nomail.test', type: 'MX', value: '.', priority: 0 });
    dns.fail('servfail.test', 'SERVFAIL');
    const seen = observer();
    const s = sender({ observer: seen });

    expect(await s.send(message(['x@nomail.test']))).toEqual({
      kind: 'hard_fail',
      code: 556,
      enhancedCode: '5.1.10',
      detail: 'Domain nomail.test does not accept mail (null MX, RFC 7505)',
    });
    expect(await s.send(message(['x@nowhere.test']))).toMatchObject({
      kind: 'hard_fail',
      code: 550,
      enhancedCode: '5.1.2',
    });
    expect(await s.send(message(['x@servfail.test']))).toMatchObject({
      kind: 'soft_fail',
      detail: expect.stringContaining('MX lookup for servfail.test failed'),
    });
    expect(seen.deferrals).toEqual([{ destination: '(dns)', reason: 'dns' }]);
    expect(mx.messages).toHaveLength(0);
  });

  it('defers an email with enforced TLS when the MX offers no STARTTLS, and says why', async () => {
    dns.add({ name: 'plaintext.test', type: 'MX', value: 'mx.plaintext.test', priority: 10 });
    dns.add({ name: 'mx.plaintext.test', type: 'A', value: '127.0.0.3' });
    const seen = observer();
    const s = sender({ observer: seen });

    const enforced = await s.send(message(['x@plaintext.test'], { tls: 'enforced' }));
    expect(enforced).toMatchObject({ kind: 'soft_fail' });
    expect(enforced.kind !== 'sent' && enforced.detail).toContain(
      'TLS is enforced for this email and mx.plaintext.test [127.0.0.3] did not complete STARTTLS',
    );
    expect(seen.deferrals).toEqual([{ destination: 'mx.plaintext.test', reason: 'tls_required' }]);
    expect(mx.messages).toHaveLength(0);

    // the same server takes it in plaintext when TLS is opportunistic
    expect(await s.send(message(['x@plaintext.test'], { tls: 'opportunistic' }))).toMatchObject({
      kind: 'sent',
    });
    expect(await s.send(message(['y@plaintext.test']))).toMatchObject({ kind: 'sent' });
    await mx.waitFor(2);
  });

  it('halves the concurrency to a host answering 421, and loses nothing once it recovers', async () => {
    dns.add({ name: 'busy.test', type: 'MX', value: 'mx.busy.test', priority: 10 });
    dns.add({ name: 'mx.busy.test', type: 'A', value: '127.0.0.3' });
    const seen = observer();
    const s = sender({ observer: seen, maxConnectionsPerHost: 8, recoverAfter: 2 });
    mx.rejectConnections(12, { code: 421, message: '4.7.0 Too many connections, slow down' });

    const emails = Array.from({ length: 16 }, (_, i) => message([`user${i}@busy.test`]));
    const outcomes = await Promise.all(emails.map((m) => untilSettled(s, m)));

    // every email ends delivered, exactly once
    expect(outcomes.map((o) => o.at(-1)?.kind)).toEqual(emails.map(() => 'sent'));
    await mx.waitFor(16);
    for (const m of emails) expect(mx.byMessageId(m.messageId!)).toHaveLength(1);
    // the limit fell from 8 (each round of 421s halves it)
    const limits = seen.limits.filter((l) => l.destination === 'mx.busy.test').map((l) => l.limit);
    expect(limits[0]).toBe(8);
    const lowest = Math.min(...limits);
    expect(lowest).toBeLessThanOrEqual(2);
    // and grows back by one every `recoverAfter` (2) deliveries
    const before = s.limitOf('mx.busy.test')!;
    for (let i = 0; i < 4; i++)
      expect(await s.send(message([`late${i}@busy.test`]))).toMatchObject({ kind: 'sent' });
    expect(s.limitOf('mx.busy.test')).toBe(Math.min(8, before + 2));
    expect(seen.deferrals.filter((d) => d.reason === 'throttled').length).toBeGreaterThan(0);
    expect(seen.deferrals.every((d) => d.destination === 'mx.busy.test' && d.reason === 'throttled')).toBe(
      true,
    );
  });

  it('reaches an MX that has only an IPv6 address', async () => {
    const v6 = await startSmtpSink({ host: '::1', port: mx.port });
    try {
      dns.add({ name: 'v6.test', type: 'MX', value: 'mx.v6.test', priority: 10 });
      dns.add({ name: 'mx.v6.test', type: 'AAAA', value: '::1' });
      expect(await sender().send(message(['x@v6.test']))).toMatchObject({ kind: 'sent' });
      expect((await v6.waitFor(1))[0]?.envelope.to).toEqual(['x@v6.test']);
    } finally {
      await Promise.all(senders.splice(0).map((x) => x.close()));
      await v6.stop();
    }
  });

  it('defers a send that gets no slot under the host limit within the wait bound', async () => {
    const slow = await startSmtpSink({
      host: '127.0.0.5',
      port: mx.port,
      plan: { 'stall@slow.test': [{ at: 'rcpt', stall: true }] },
    });
    try {
      dns.add({ name: 'slow.test', type: 'MX', value: 'mx.slow.test', priority: 10 });
      dns.add({ name: 'mx.slow.test', type: 'A', value: '127.0.0.5' });
      const seen = observer();
      const s = sender({
        observer: seen,
        maxConnectionsPerHost: 1,
        slotWaitMs: 300,
        socketTimeoutMs: 60_000,
      });
      // the first send holds the only slot: its RCPT TO is never answered
      const stalled = s.send(message(['stall@slow.test']));
      await waitUntil(() => slow.attemptsFor('stall@slow.test') === 1, { message: 'the stalled RCPT TO' });

      expect(await s.send(message(['ok@slow.test']))).toMatchObject({
        kind: 'soft_fail',
        detail: expect.stringContaining(
          'no free connection to mx.slow.test within 300 ms (concurrency limit 1)',
        ),
      });
      expect(seen.deferrals).toEqual([{ destination: 'mx.slow.test', reason: 'slot_timeout' }]);
      expect(slow.attemptsFor('ok@slow.test')).toBe(0);

      await slow.stop(); // cuts the stalled session
      expect(await stalled).toMatchObject({ kind: 'soft_fail' });
    } finally {
      await slow.stop();
    }
  });

  it('keeps at most maxPools destinations, forgetting the least recently used', async () => {
    for (const name of ['one.test', 'two.test', 'three.test'])
      dns.add({ name, type: 'A', value: '127.0.0.3' });
    const seen = observer();
    const s = sender({ observer: seen, maxPools: 2 });

    for (const name of ['one.test', 'two.test', 'three.test']) {
      expect(await s.send(message([`x@${name}`]))).toMatchObject({ kind: 'sent' });
    }
    expect(seen.forgotten).toEqual(['one.test']);
    expect(s.limitOf('one.test')).toBeUndefined();
    expect(s.limitOf('three.test')).toBe(4);
  });

  it('uses STARTTLS when the MX offers it, without checking the certificate; a failed handshake is not retried in plaintext', async () => {
    const tlsMx = await startTlsMx('127.0.0.4', mx.port);
    try {
      dns.add({ name: 'tls.test', type: 'MX', value: 'mx.tls.test', priority: 10 });
      dns.add({ name: 'mx.tls.test', type: 'A', value: '127.0.0.4' });
      const s = sender();
      expect(await s.send(message(['a@tls.test']))).toMatchObject({ kind: 'sent' });
      expect(await s.send(message(['b@tls.test'], { tls: 'enforced' }))).toMatchObject({ kind: 'sent' });
      expect(tlsMx.received).toEqual([
        { to: ['a@tls.test'], secure: true },
        { to: ['b@tls.test'], secure: true },
      ]);

      // a client that only speaks TLS 1.3 to a server capped at 1.2: the handshake fails, the
      // session is not resumed in plaintext, the next MX (plain, opportunistic) gets the email
      const seen = observer();
      const strict = sender({ observer: seen, tls: { minVersion: 'TLSv1.3' } });
      const alone = await strict.send(message(['c@tls.test']));
      expect(alone).toMatchObject({
        kind: 'soft_fail',
        detail: expect.stringMatching(/mx\.tls\.test \[127\.0\.0\.4\]: ESOCKET\/ERR_SSL_/),
      });
      expect(await strict.send(message(['e@tls.test'], { tls: 'enforced' }))).toMatchObject({
        kind: 'soft_fail',
        detail: expect.stringContaining(
          'TLS is enforced for this email and mx.tls.test [127.0.0.4] did not complete',
        ),
      });
      dns.add({ name: 'tls.test', type: 'MX', value: 'backup.tls.test', priority: 20 });
      dns.add({ name: 'backup.tls.test', type: 'A', value: '127.0.0.3' });
      // a fresh sender: the MX answer above is cached
      const retry = sender({ observer: seen, tls: { minVersion: 'TLSv1.3' } });
      expect(await retry.send(message(['d@tls.test']))).toMatchObject({ kind: 'sent' });
      expect(tlsMx.received).toHaveLength(2);
      expect((await mx.waitFor(1))[0]?.envelope.to).toEqual(['d@tls.test']);
      expect(seen.deferrals).toEqual([
        { destination: 'mx.tls.test', reason: 'connection' },
        { destination: 'mx.tls.test', reason: 'tls_required' },
        { destination: 'mx.tls.test', reason: 'connection' },
      ]);
    } finally {
      // the senders' pooled sessions first: the server's close waits for open ones
      await Promise.all(senders.splice(0).map((x) => x.close()));
      await tlsMx.stop();
    }
  });
});

/** An MX offering STARTTLS with a self-signed certificate, TLS 1.2 at most; records whether each message came over TLS. */
async function startTlsMx(
  host: string,
  port: number,
): Promise<{ received: { to: string[]; secure: boolean }[]; stop: () => Promise<void> }> {
  const pems = await selfsigned.generate([{ name: 'commonName', value: 'mx.tls.test' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
  });
  const received: { to: string[]; secure: boolean }[] = [];
  const server = new SMTPServer({
    key: pems.private,
    cert: pems.cert,
    maxVersion: 'TLSv1.2',
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onData(stream, session, callback) {
      stream.resume();
      stream.on('end', () => {
        received.push({ to: session.envelope.rcptTo.map((r) => r.address), secure: session.secure });
        callback();
      });
    },
  } as ConstructorParameters<typeof SMTPServer>[0]);
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  expect((server.server.address() as AddressInfo).port).toBe(port);
  return { received, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
