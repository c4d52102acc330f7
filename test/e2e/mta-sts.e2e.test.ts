/**
 * MTA-STS (RFC 8461) and TLS-RPT (RFC 8460) in direct delivery, through the official `resend`
 * SDK and the whole stack, with every part local and real: an authoritative DNS server (the
 * `_mta-sts` and `_smtp._tls` TXT records, MX and A records), an HTTPS policy server whose
 * certificate a test CA issued (trusted through the test-only MTA_STS_CA_FILE), and TLS sinks on
 * 127.0.0.x behind one port — one with a certificate for its MX name, one self-signed, and a
 * "rogue" MX the policy does not list.
 *
 * enforce: the unlisted MX never sees a connection, the listed one gets the mail over a
 * verified TLS session, an untrusted certificate defers (and never falls back to plaintext);
 * testing: the mail is delivered and the failure reported; the policy is fetched once per
 * max_age and again when the TXT id changes; the daily reports (a short test "day",
 * TLS_RPT_DAY_S) reach the https: rua as gzip JSON and the mailto: rua as an email through
 * Petrel's own send path, with exactly the sessions counted.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestCa,
  selfSignedCertificate,
  startDnsServer,
  startSmtpSink,
  waitUntil,
  type SmtpSink,
  type TestDnsServer,
} from '@petrel/testing';
import { lastEvent, sendPlain, startStack, type Stack } from './helpers.js';

interface Report {
  'date-range': { 'start-datetime': string };
  policies: {
    policy: { 'policy-type': string; 'policy-domain': string; 'mx-host'?: string[] };
    summary: { 'total-successful-session-count': number; 'total-failure-session-count': number };
    'failure-details'?: {
      'result-type': string;
      'receiving-mx-hostname': string;
      'failed-session-count': number;
    }[];
  }[];
}

let dns: TestDnsServer;
let https: Server;
let stack: Stack;
let good: SmtpSink;
let untrusted: SmtpSink;
let rogue: SmtpSink;
let reportsMx: SmtpSink;
/** Policy text by policy host (`mta-sts.<domain>`), and how often each was fetched. */
const policies = new Map<string, string>();
const fetches = new Map<string, number>();
/** Reports POSTed to the https: rua, with their content type. */
const posted: { type: string | undefined; report: Report }[] = [];

const policy = (mode: string, mx: string[], maxAge = 86_400): string =>
  ['version: STSv1', `mode: ${mode}`, ...mx.map((m) => `mx: ${m}`), `max_age: ${maxAge}`].join('\r\n') +
  '\r\n';

/** Publishes a domain's MTA-STS policy: the TXT id, the policy host's address, the file. */
function publish(domain: string, id: string, text: string): void {
  dns.set(`_mta-sts.${domain}`, 'TXT', [`v=STSv1; id=${id}`]);
  dns.set(`mta-sts.${domain}`, 'A', ['127.0.0.1']);
  policies.set(`mta-sts.${domain}`, text);
}

function mx(domain: string, hosts: [name: string, address: string, preference: number][]): void {
  for (const [name, address, preference] of hosts) {
    dns.add({ name: domain, type: 'MX', value: name, priority: preference });
    dns.set(name, 'A', [address]);
  }
}

beforeAll(async () => {
  dns = await startDnsServer();
  const ca = await createTestCa();
  const policyHosts = ['enforce', 'only-rogue', 'badcert', 'testing'].map((d) => `mta-sts.${d}.sts.test`);
  const httpsCert = await ca.issue([...policyHosts, '127.0.0.1']);
  https = createServer({ key: httpsCert.key, cert: httpsCert.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const host = (req.headers.host ?? '').split(':')[0]!;
      if (req.method === 'GET' && req.url === '/.well-known/mta-sts.txt' && policies.has(host)) {
        fetches.set(host, (fetches.get(host) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'text/plain' }).end(policies.get(host));
        return;
      }
      if (req.method === 'POST' && req.url === '/tlsrpt') {
        const type = req.headers['content-type'];
        posted.push({ type, report: JSON.parse(gunzipSync(Buffer.concat(chunks)).toString()) as Report });
        res.writeHead(201).end();
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => https.listen(0, '127.0.0.1', resolve));
  const httpsPort = (https.address() as AddressInfo).port;

  // one port for every MX, on its own loopback address (as DIRECT_SMTP_PORT is one port)
  good = await startSmtpSink({ host: '127.0.0.3', tls: await ca.issue(['mx1.enforce.sts.test']) });
  const port = good.port;
  untrusted = await startSmtpSink({
    host: '127.0.0.4',
    port,
    tls: await selfSignedCertificate(['mx.badcert.sts.test', 'mx.testing.sts.test']),
  });
  rogue = await startSmtpSink({ host: '127.0.0.5', port, tls: await ca.issue(['rogue.sts.test']) });
  reportsMx = await startSmtpSink({ host: '127.0.0.6', port });

  mx('enforce.sts.test', [
    ['rogue.sts.test', '127.0.0.5', 5],
    ['mx1.enforce.sts.test', '127.0.0.3', 10],
  ]);
  publish('enforce.sts.test', 'e1', policy('enforce', ['*.enforce.sts.test']));
  dns.set('_smtp._tls.enforce.sts.test', 'TXT', [`v=TLSRPTv1; rua=https://127.0.0.1:${httpsPort}/tlsrpt`]);
  mx('only-rogue.sts.test', [['rogue.sts.test', '127.0.0.5', 10]]);
  publish('only-rogue.sts.test', 'r1', policy('enforce', ['mx.only-rogue.sts.test']));
  mx('badcert.sts.test', [['mx.badcert.sts.test', '127.0.0.4', 10]]);
  publish('badcert.sts.test', 'b1', policy('enforce', ['mx.badcert.sts.test']));
  mx('testing.sts.test', [['mx.testing.sts.test', '127.0.0.4', 10]]);
  publish('testing.sts.test', 't1', policy('testing', ['mx.testing.sts.test']));
  dns.set('_smtp._tls.testing.sts.test', 'TXT', ['v=TLSRPTv1; rua=mailto:tls-reports@reports.sts.test']);
  mx('reports.sts.test', [['mx.reports.sts.test', '127.0.0.6', 10]]);

  stack = await startStack({
    env: {
      DELIVERY_MODE: 'direct',
      DIRECT_SMTP_PORT: String(port),
      DNS_SERVERS: dns.address,
      DIRECT_HELO_NAME: 'mta.e2e.test',
      // every email asks DNS again: the TXT id change is seen on the next email
      DIRECT_MX_CACHE_TTL_S: '0',
      MTA_STS_HTTPS_PORT: String(httpsPort),
      MTA_STS_CA_FILE: ca.file,
      TLS_RPT_DAY_S: '4',
      TLS_RPT_INTERVAL_S: '1',
      TLS_RPT_FROM: 'tls-reports@petrel.e2e.test',
      TLS_RPT_ORG_NAME: 'Petrel e2e',
    },
  });
});

afterAll(async () => {
  await stack?.stop();
  await Promise.all([good?.stop(), untrusted?.stop(), rogue?.stop(), reportsMx?.stop(), dns?.stop()]);
  await new Promise((resolve) => (https ? https.close(resolve) : resolve(undefined)));
});

/** An email from the verified sender domain to `to`; its id. */
const send = (to: string, subject: string) => sendPlain(stack, 'sender@petrel.e2e.test', to, subject);

/** The email's events as the webhooks carry them. */
async function eventsOf(id: string) {
  return (await stack.teamEvents('email.')).filter((e) => (e.data as { email_id?: string }).email_id === id);
}

describe('MTA-STS enforce', () => {
  it('delivers only to a listed MX over a verified TLS session; the unlisted MX never gets a connection', async () => {
    const first = await send('ada@enforce.sts.test', 'enforced 1');
    await lastEvent(stack, first, 'delivered');
    const second = await send('bob@enforce.sts.test', 'enforced 2');
    await lastEvent(stack, second, 'delivered');

    expect(good.messages.map((m) => m.envelope.to.join())).toEqual([
      'ada@enforce.sts.test',
      'bob@enforce.sts.test',
    ]);
    expect(good.messages.every((m) => m.envelope.secure === true)).toBe(true);
    // the preferred MX (5) is not in the policy: never connected to
    expect(rogue.connectionCount()).toBe(0);
    // cached for max_age: one fetch for both emails
    expect(fetches.get('mta-sts.enforce.sts.test')).toBe(1);
  });

  it('fetches the policy again when the TXT id changes', async () => {
    publish('enforce.sts.test', 'e2', policy('enforce', ['*.enforce.sts.test', 'mx9.enforce.sts.test']));
    const id = await send('cy@enforce.sts.test', 'enforced 3');
    await lastEvent(stack, id, 'delivered');
    expect(fetches.get('mta-sts.enforce.sts.test')).toBe(2);
    expect(rogue.connectionCount()).toBe(0);
  });

  it('defers, never downgrades, when no MX of the domain is in its policy: the email ends a Temporary bounce', async () => {
    const id = await send('dee@only-rogue.sts.test', 'nowhere to go');
    await lastEvent(stack, id, 'bounced');
    expect(rogue.connectionCount()).toBe(0);
    expect(rogue.messages).toHaveLength(0);
    const events = await eventsOf(id);
    expect(events.map((e) => e.type)).toContain('email.delivery_delayed');
    const bounced = events.find((e) => e.type === 'email.bounced');
    expect(bounced?.data).toMatchObject({ bounce: { type: 'Temporary' } });
    expect(JSON.stringify(bounced?.data)).toContain(
      'MTA-STS policy of only-rogue.sts.test (enforce) lists none of its MX hosts',
    );

    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(
      /petrel_direct_deferrals_total\{[^}]*destination="\(mta-sts\)"[^}]*reason="mta_sts"[^}]*\} [1-9]/,
    );
  });

  it('defers an MX whose certificate does not validate, and never sends it the email', async () => {
    const id = await send('eve@badcert.sts.test', 'untrusted certificate');
    await waitUntil(async () => (await eventsOf(id)).some((e) => e.type === 'email.delivery_delayed'), {
      timeoutMs: 20_000,
      message: 'the email to be deferred',
    });
    await stack.settled([id], 20_000);
    // the handshake was tried (and failed): a connection, no message
    expect(untrusted.connectionCount()).toBeGreaterThan(0);
    expect(untrusted.messages.filter((m) => m.envelope.to.includes('eve@badcert.sts.test'))).toHaveLength(0);
    const bounced = (await eventsOf(id)).find((e) => e.type === 'email.bounced');
    expect(JSON.stringify(bounced?.data)).toContain('MTA-STS policy of badcert.sts.test (enforce)');
  });
});

describe('MTA-STS testing', () => {
  it('delivers despite an untrusted certificate, and counts the failure', async () => {
    const id = await send('fay@testing.sts.test', 'testing mode');
    await lastEvent(stack, id, 'delivered');
    expect(untrusted.messages.map((m) => m.envelope.to.join())).toContain('fay@testing.sts.test');
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(
      /petrel_direct_tls_sessions_total\{[^}]*mode="testing"[^}]*result="certificate-not-trusted"[^}]*\} 1/,
    );
  });
});

describe('TLS-RPT', () => {
  it("sends each day's report once, to the https: rua as gzip JSON, with every session counted", async () => {
    // the 3 emails to enforce.sts.test: a success at mx1 and the unlisted rogue MX each
    const total = (key: 'total-successful-session-count' | 'total-failure-session-count') =>
      posted
        .flatMap((p) => p.report.policies)
        .filter((p) => p.policy['policy-domain'] === 'enforce.sts.test')
        .reduce((n, p) => n + p.summary[key], 0);
    await waitUntil(
      () => total('total-successful-session-count') >= 3 && total('total-failure-session-count') >= 3,
      {
        timeoutMs: 20_000,
        message: 'the reports of enforce.sts.test',
      },
    );
    expect(total('total-successful-session-count')).toBe(3);
    expect(total('total-failure-session-count')).toBe(3);
    expect(posted.every((p) => p.type === 'application/tlsrpt+gzip')).toBe(true);
    const failures = posted.flatMap((p) => p.report.policies.flatMap((q) => q['failure-details'] ?? []));
    expect(new Set(failures.map((f) => `${f['result-type']} ${f['receiving-mx-hostname']}`))).toEqual(
      new Set(['validation-failure rogue.sts.test']),
    );
    // one report per day: no two with the same date range
    const days = posted.map((p) => p.report['date-range']['start-datetime']);
    expect(new Set(days).size).toBe(days.length);
    // both policies the emails went by (the id changed between them) are named
    expect(posted.flatMap((p) => p.report.policies.map((q) => q.policy['policy-type']))).not.toContain(
      'no-policy-found',
    );
  });

  it('emails the report to a mailto: rua through the send path, with the testing-mode failure', async () => {
    const [message] = await reportsMx.waitFor(1, 20_000);
    expect(message?.envelope.to).toEqual(['tls-reports@reports.sts.test']);
    expect(message?.parsed.subject).toMatch(
      /^Report Domain: testing\.sts\.test Submitter: mta\.e2e\.test Report-ID: <.+>$/,
    );
    const header = (name: string) => message?.parsed.headers.find((h) => h.key === name)?.value;
    expect(header('tls-report-domain')).toBe('testing.sts.test');
    const file = message!.parsed.attachments[0]!;
    expect(file.filename).toMatch(/^mta\.e2e\.test!testing\.sts\.test!\d+!\d+!.+\.json\.gz$/);
    expect(file.mimeType).toBe('application/tlsrpt+gzip');
    const report = JSON.parse(gunzipSync(Buffer.from(file.content as ArrayBuffer)).toString()) as Report;
    expect(report.policies).toHaveLength(1);
    expect(report.policies[0]).toMatchObject({
      policy: {
        'policy-type': 'sts',
        'policy-domain': 'testing.sts.test',
        'mx-host': ['mx.testing.sts.test'],
      },
      summary: { 'total-successful-session-count': 0, 'total-failure-session-count': 1 },
      'failure-details': [
        {
          'result-type': 'certificate-not-trusted',
          'receiving-mx-hostname': 'mx.testing.sts.test',
          'failed-session-count': 1,
        },
      ],
    });
  });
});
