import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  parseTlsRptRecord,
  sendTlsReports,
  tlsReportDelivery,
  tlsRptRua,
  type TlsReportPorts,
  type TlsRptCounts,
} from './tls-rpt.js';

const counts: TlsRptCounts = {
  policies: [
    {
      policy: { type: 'sts', lines: ['version: STSv1', 'mode: enforce'], mxHost: ['*.mx.example.com'] },
      successes: 3,
      failures: [
        { resultType: 'validation-failure', mx: 'rogue.example.net', count: 2 },
        { resultType: 'certificate-not-trusted', mx: 'a.mx.example.com', receivingIp: '192.0.2.5', count: 1 },
      ],
    },
  ],
};

describe('the TLS-RPT record (RFC 8460 section 3)', () => {
  it('reads the mailto: and https: rua of a v=TLSRPTv1 record', () => {
    expect(parseTlsRptRecord('v=TLSRPTv1; rua=mailto:tls@example.com,https://r.example.com/tls')).toEqual([
      'mailto:tls@example.com',
      'https://r.example.com/tls',
    ]);
  });

  it('is not a record without the version first, or without a usable rua', () => {
    expect(parseTlsRptRecord('rua=mailto:tls@example.com; v=TLSRPTv1')).toBeNull();
    expect(parseTlsRptRecord('v=TLSRPTv1; rua=ftp://x.example.com')).toBeNull();
    expect(parseTlsRptRecord('v=spf1 -all')).toBeNull();
  });

  it('counts as none when a name has two records', () => {
    const r = 'v=TLSRPTv1; rua=mailto:a@example.com';
    expect(tlsRptRua(['v=spf1 -all', r])).toEqual(['mailto:a@example.com']);
    expect(tlsRptRua([r, r])).toBeNull();
  });
});

describe('the report (RFC 8460 section 4)', () => {
  const meta = {
    organization: 'Petrel',
    contact: 'ops@petrel.test',
    submitter: 'mta.petrel.test',
    reportId: 'r1',
    startMs: Date.UTC(2026, 0, 2),
    endMs: Date.UTC(2026, 0, 3),
  };

  it('summarises each policy and details its failures; the gzip body is that JSON', () => {
    const report = tlsReportDelivery('example.com', counts, meta);
    expect(JSON.parse(gunzipSync(report.gzip).toString())).toEqual({
      'organization-name': 'Petrel',
      'date-range': { 'start-datetime': '2026-01-02T00:00:00Z', 'end-datetime': '2026-01-02T23:59:59Z' },
      'contact-info': 'ops@petrel.test',
      'report-id': 'r1',
      policies: [
        {
          policy: {
            'policy-type': 'sts',
            'policy-string': ['version: STSv1', 'mode: enforce'],
            'policy-domain': 'example.com',
            'mx-host': ['*.mx.example.com'],
          },
          summary: { 'total-successful-session-count': 3, 'total-failure-session-count': 3 },
          'failure-details': [
            {
              'result-type': 'validation-failure',
              'receiving-mx-hostname': 'rogue.example.net',
              'failed-session-count': 2,
            },
            {
              'result-type': 'certificate-not-trusted',
              'receiving-mx-hostname': 'a.mx.example.com',
              'receiving-ip': '192.0.2.5',
              'failed-session-count': 1,
            },
          ],
        },
      ],
    });
    expect(report.filename).toBe('mta.petrel.test!example.com!1767312000!1767398400!r1.json.gz');
    expect(report.subject).toBe('Report Domain: example.com Submitter: mta.petrel.test Report-ID: <r1>');
  });
});

describe('sendTlsReports', () => {
  function ports(over: Partial<TlsReportPorts> & { rua?: Record<string, string[] | null> } = {}) {
    const claimed = new Set<string>();
    const finished: number[] = [];
    const delivered: { uri: string; domain: string; period: number }[] = [];
    const p: TlsReportPorts = {
      pendingPeriods: (before) => Promise.resolve([1, 2, 3].filter((x) => x < before)),
      domains: () => Promise.resolve(['a.example', 'b.example']),
      counts: () => Promise.resolve(counts),
      claim: (period, domain) => {
        const k = `${period}/${domain}`;
        if (claimed.has(k)) return Promise.resolve(false);
        claimed.add(k);
        return Promise.resolve(true);
      },
      release: (period, domain) => {
        claimed.delete(`${period}/${domain}`);
        return Promise.resolve();
      },
      finish: (period) => {
        finished.push(period);
        return Promise.resolve();
      },
      txt: (name) =>
        Promise.resolve(
          over.rua && name in over.rua
            ? (over.rua[name] ?? null)
            : [`v=TLSRPTv1; rua=https://r.example/${name}`],
        ),
      deliver: (uri, report, period) => {
        delivered.push({ uri, domain: report.domain, period });
        return Promise.resolve();
      },
      reportId: () => 'id',
      canDeliver: (uri) => !uri.startsWith('mailto:'),
      ...over,
    };
    return { p, finished, delivered };
  }
  const opts = { periodMs: 1000, organization: 'o', contact: 'c', submitter: 's' };

  it('reports every domain of every finished period once, the current one not yet', async () => {
    const { p, finished, delivered } = ports();
    const run = await sendTlsReports(p, { ...opts, nowMs: 3_500 });
    expect(run.sent.map((s) => `${s.period}/${s.domain}`)).toEqual([
      '1/a.example',
      '1/b.example',
      '2/a.example',
      '2/b.example',
    ]);
    expect(delivered).toHaveLength(4);
    expect(finished).toEqual([1, 2]);
    // a period that ended less than settleMs ago waits for the workers' last counts
    const settling = ports();
    const early = await sendTlsReports(settling.p, { ...opts, nowMs: 3_200, settleMs: 500 });
    expect(early.sent.map((r) => r.period)).toEqual([1, 1]);
    // a second run (another scheduler) finds every report claimed

    const again = await sendTlsReports(p, { ...opts, nowMs: 3_500 });
    expect(again.sent).toEqual([]);
  });

  it('skips a domain without a record it can send to; gives a failed lookup or delivery back for the next run', async () => {
    let fail = true;
    const { p, finished } = ports({
      pendingPeriods: () => Promise.resolve([1]),
      rua: { '_smtp._tls.a.example': ['v=TLSRPTv1; rua=mailto:tls@a.example'], '_smtp._tls.b.example': null },
    });
    const run = await sendTlsReports(p, { ...opts, nowMs: 5_000 });
    expect(run).toMatchObject({ sent: [], skipped: 1, failed: 1 });
    expect(finished).toEqual([]);

    const failing = ports({
      pendingPeriods: () => Promise.resolve([1]),
      deliver: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve()),
    });
    expect((await sendTlsReports(failing.p, { ...opts, nowMs: 5_000 })).failed).toBe(2);
    fail = false;
    expect((await sendTlsReports(failing.p, { ...opts, nowMs: 5_000 })).sent).toHaveLength(2);
    expect(failing.finished).toEqual([1]);
  });
});
