/**
 * A report run over in-memory ports (counters, DNS answers, the https transport, the accept path
 * of POST /emails from @petrel/testing): where each rua's report goes (RFC 8460 section 5.3), what
 * the report email carries (section 5.3.1), what a DNS answer means for the claim, and that a day
 * is reported only once its workers' last counts are in.
 */
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { memoryAcceptPorts } from '@petrel/testing';
import type { DnsAnswer } from '../domains/verify-domain.js';
import { runTlsReports, tlsReportEmail, type TlsReportRunPorts } from './tls-report-run.js';
import type { TlsReportDelivery, TlsRptCounts } from './tls-rpt.js';

const DAY = 86_400_000;
const counts: TlsRptCounts = {
  policies: [
    {
      policy: { type: 'sts', lines: ['version: STSv1', 'mode: enforce'], mxHost: ['mx.a.example'] },
      successes: 4,
      failures: [],
    },
  ],
};
const settings = {
  periodMs: DAY,
  organization: 'Petrel',
  contact: 'ops@petrel.test',
  submitter: 'mx.petrel.test',
};

function world(txt: Record<string, DnsAnswer<string>>, opts: { mail?: boolean; nowMs?: number } = {}) {
  const claimed = new Set<string>();
  const finished: number[] = [];
  const posted: { uri: string; report: TlsReportDelivery }[] = [];
  const refused: string[] = [];
  const accept = memoryAcceptPorts();
  const ports: TlsReportRunPorts = {
    counters: {
      pendingPeriods: async (before) => [0].filter((p) => p < before),
      domains: async () => Object.keys(txt).map((name) => name.replace('_smtp._tls.', '')),
      counts: async () => counts,
      claim: async (p, d) => !claimed.has(`${p}/${d}`) && Boolean(claimed.add(`${p}/${d}`)),
      release: async (p, d) => void claimed.delete(`${p}/${d}`),
      finish: async (p) => void finished.push(p),
    },
    dns: { txt: async (name) => txt[name] ?? { kind: 'none' } },
    async post(uri, report) {
      if (uri.includes('down')) throw new Error(`${uri} answered HTTP 503`);
      posted.push({ uri, report });
    },
    mail:
      opts.mail === false
        ? undefined
        : { from: 'tlsrpt@petrel.test', teamId: async () => 'team_1', accept: async () => accept },
    reportId: () => 'r1',
    clock: { now: () => opts.nowMs ?? DAY + 60_000 },
    undelivered: (_err, uri) => void refused.push(uri),
  };
  return { ports, claimed, finished, posted, refused, accept };
}

const record = (rua: string): DnsAnswer<string> => ({ kind: 'found', values: [`v=TLSRPTv1; rua=${rua}`] });

describe('runTlsReports', () => {
  it('POSTs the gzip JSON to an https: rua and emails it to a mailto: rua through the accept path', async () => {
    const w = world({ '_smtp._tls.a.example': record('https://r.a.example/tls,mailto:tls@a.example') });
    const run = await runTlsReports(w.ports, settings);
    expect(run.sent).toEqual([
      { domain: 'a.example', period: 0, uris: ['https://r.a.example/tls', 'mailto:tls@a.example'] },
    ]);
    expect(w.posted.map((p) => p.uri)).toEqual(['https://r.a.example/tls']);
    const json = JSON.parse(gunzipSync(w.posted[0]!.report.gzip).toString()) as Record<string, unknown>;
    expect(json['report-id']).toBe('r1');
    const [email] = w.accept.store.records;
    expect(email?.teamId).toBe('team_1');
    expect(email?.content).toMatchObject({
      from: 'tlsrpt@petrel.test',
      to: ['tls@a.example'],
      subject: 'Report Domain: a.example Submitter: mx.petrel.test Report-ID: <r1>',
      headers: { 'TLS-Report-Domain': 'a.example', 'TLS-Report-Submitter': 'mx.petrel.test' },
    });
    expect(email?.content.attachments).toMatchObject([
      { filename: 'mx.petrel.test!a.example!0!86400!r1.json.gz', content_type: 'application/tlsrpt+gzip' },
    ]);
    expect(w.finished).toEqual([0]);
  });

  it('leaves mailto: rua out without a sender: a domain with only those is skipped, not retried', async () => {
    const w = world(
      {
        '_smtp._tls.a.example': record('mailto:tls@a.example'),
        '_smtp._tls.b.example': record('mailto:tls@b.example,https://r.b.example/tls'),
      },
      { mail: false },
    );
    const run = await runTlsReports(w.ports, settings);
    expect(run).toMatchObject({ skipped: 1, failed: 0 });
    expect(run.sent.map((s) => s.uris)).toEqual([['https://r.b.example/tls']]);
    expect(w.accept.store.records).toEqual([]);
    expect(w.finished).toEqual([0]);
  });

  it('gives the claim back on DNS trouble (tried again), and skips a domain without a record', async () => {
    const w = world({
      '_smtp._tls.a.example': { kind: 'error', detail: 'SERVFAIL' },
      '_smtp._tls.b.example': { kind: 'none' },
    });
    const run = await runTlsReports(w.ports, settings);
    expect(run).toMatchObject({ sent: [], skipped: 1, failed: 1 });
    expect([...w.claimed]).toEqual(['0/b.example']);
    expect(w.finished).toEqual([]);
  });

  it('reports a rua that refused and counts the report sent when another rua took it', async () => {
    const w = world({ '_smtp._tls.a.example': record('https://down.a.example/tls,https://r.a.example/tls') });
    const run = await runTlsReports(w.ports, settings);
    expect(w.refused).toEqual(['https://down.a.example/tls']);
    expect(run.sent.map((s) => s.uris)).toEqual([['https://r.a.example/tls']]);
  });

  it('waits a minute after the day ends for the workers last counts', async () => {
    const early = world(
      { '_smtp._tls.a.example': record('https://r.a.example/tls') },
      { nowMs: DAY + 59_999 },
    );
    expect((await runTlsReports(early.ports, settings)).sent).toEqual([]);
    const late = world(
      { '_smtp._tls.a.example': record('https://r.a.example/tls') },
      { nowMs: DAY + 60_000 },
    );
    expect((await runTlsReports(late.ports, settings)).sent).toHaveLength(1);
  });
});

describe('tlsReportEmail', () => {
  it('mails the address of the URI without its query (RFC 6068), under a key fixed per report and address', () => {
    const report = {
      domain: 'a.example',
      submitter: 's',
      subject: 'x',
      filename: 'f',
      gzip: Buffer.from(''),
    };
    const email = tlsReportEmail(
      'mailto:tls%2Breports@a.example?subject=ignored',
      report as TlsReportDelivery,
      7,
      'f@p.test',
    );
    expect(email.to).toBe('tls+reports@a.example');
    expect(email.idempotencyKey).toBe('tlsrpt-7-a.example-tls+reports@a.example');
    expect(
      tlsReportEmail('mailto:tls%2Breports@a.example', report as TlsReportDelivery, 7, 'f@p.test')
        .idempotencyKey,
    ).toBe(email.idempotencyKey);
  });
});
