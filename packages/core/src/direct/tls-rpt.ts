/**
 * TLS-RPT (RFC 8460): what a sending MTA records about the TLS of its sessions to a policy
 * domain, and the daily aggregate report it sends to the domain's `rua`. Pure rules and the
 * report use-case over ports (the counters are the store's, the DNS lookup and the two ways of
 * delivering a report the apps').
 */
import { gzipSync } from 'node:zlib';

/**
 * RFC 8460 section 4.3.2: the result types of a failed session (negotiation failures, policy
 * failures) that direct delivery reports — a bounded set, as the counters, the metrics and the
 * report's `failure-details` key on it.
 */
export const TLS_RPT_RESULT_TYPES = [
  'starttls-not-supported',
  'certificate-host-mismatch',
  'certificate-expired',
  'certificate-not-trusted',
  'validation-failure',
  'sts-policy-fetch-error',
  'sts-policy-invalid',
  'sts-webpki-invalid',
] as const;
export type TlsRptResultType = (typeof TLS_RPT_RESULT_TYPES)[number];

/** RFC 8460 section 4.3: the policy a session was checked against. */
export interface TlsRptPolicy {
  type: 'sts' | 'no-policy-found';
  /** The policy's lines (`policy-string`), empty for `no-policy-found`. */
  lines: string[];
  /** The policy's `mx` patterns (`mx-host`). */
  mxHost: string[];
}

/** One session's outcome, as direct delivery reports it. */
export type TlsRptSession =
  | { ok: true }
  | {
      ok: false;
      resultType: TlsRptResultType;
      /** The MX host name tried. */
      mx: string;
      /** The MX address connected to, when the failure happened on a connection. */
      receivingIp?: string;
      /** Our source address, when it is known (a sending pool's). */
      sendingIp?: string;
    };

/** Where direct delivery records its sessions (the store's counters); must not throw. */
export interface TlsRptRecorder {
  record(domain: string, policy: TlsRptPolicy, session: TlsRptSession): void;
}

/** What the counters hold for one policy domain and reporting period. */
export interface TlsRptCounts {
  policies: {
    policy: TlsRptPolicy;
    successes: number;
    failures: {
      resultType: TlsRptResultType;
      mx: string;
      receivingIp?: string;
      sendingIp?: string;
      count: number;
    }[];
  }[];
}

/**
 * RFC 8460 section 3: `v=TLSRPTv1; rua=<uri>[,<uri>]`, the version first. Returns the `mailto:`
 * and `https:` URIs of the record (others are ignored), or null when it is not a TLS-RPT record.
 */
export function parseTlsRptRecord(txt: string): string[] | null {
  const fields = txt
    .split(';')
    .map((f) => f.trim())
    .filter((f) => f !== '');
  if (fields.length === 0 || !/^v\s*=\s*TLSRPTv1$/i.test(fields[0]!)) return null;
  const rua = fields.find((f) => /^rua\s*=/i.test(f));
  if (!rua) return null;
  const uris = rua
    .slice(rua.indexOf('=') + 1)
    .split(',')
    .map((u) => u.trim())
    .filter((u) => /^(mailto:[^@\s]+@[^@\s]+|https:\/\/\S+)$/i.test(u));
  return uris.length > 0 ? uris : null;
}

/** The single TLS-RPT record among a name's TXT records (RFC 8460 section 3: more than one is none). */
export function tlsRptRua(txtRecords: readonly string[]): string[] | null {
  const found = txtRecords.map(parseTlsRptRecord).filter((r): r is string[] => r !== null);
  return found.length === 1 ? found[0]! : null;
}

export interface TlsReportMeta {
  /** `organization-name`. */
  organization: string;
  /** `contact-info`: an address or URL of the sender's operators. */
  contact: string;
  /** Our host name, the `sender` part of the file name (RFC 8460 section 5.1). */
  submitter: string;
  reportId: string;
  startMs: number;
  endMs: number;
}

const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The report of RFC 8460 section 4 for one policy domain (the JSON object). */
export function buildTlsReport(
  domain: string,
  counts: TlsRptCounts,
  meta: TlsReportMeta,
): Record<string, unknown> {
  return {
    'organization-name': meta.organization,
    'date-range': { 'start-datetime': iso(meta.startMs), 'end-datetime': iso(meta.endMs - 1000) },
    'contact-info': meta.contact,
    'report-id': meta.reportId,
    policies: counts.policies.map((p) => ({
      policy: {
        'policy-type': p.policy.type,
        ...(p.policy.lines.length > 0 && { 'policy-string': p.policy.lines }),
        'policy-domain': domain,
        ...(p.policy.mxHost.length > 0 && { 'mx-host': p.policy.mxHost }),
      },
      summary: {
        'total-successful-session-count': p.successes,
        'total-failure-session-count': p.failures.reduce((n, f) => n + f.count, 0),
      },
      ...(p.failures.length > 0 && {
        'failure-details': p.failures.map((f) => ({
          'result-type': f.resultType,
          ...(f.sendingIp !== undefined && { 'sending-mta-ip': f.sendingIp }),
          'receiving-mx-hostname': f.mx,
          ...(f.receivingIp !== undefined && { 'receiving-ip': f.receivingIp }),
          'failed-session-count': f.count,
        })),
      }),
    })),
  };
}

/** A report ready to go: the gzip body and the names RFC 8460 section 5.3 gives it. */
export interface TlsReportDelivery {
  domain: string;
  /** RFC 8460 section 5.3: `<submitter>!<policy-domain>!<begin>!<end>!<id>.json.gz`, seconds. */
  filename: string;
  /** RFC 8460 section 5.3.1: `Report Domain: … Submitter: … Report-ID: <…>`. */
  subject: string;
  submitter: string;
  reportId: string;
  json: Record<string, unknown>;
  /** The gzip of the JSON: `application/tlsrpt+gzip` (RFC 8460 section 6.4). */
  gzip: Buffer;
}

export function tlsReportDelivery(
  domain: string,
  counts: TlsRptCounts,
  meta: TlsReportMeta,
): TlsReportDelivery {
  const json = buildTlsReport(domain, counts, meta);
  const begin = Math.floor(meta.startMs / 1000);
  const end = Math.floor(meta.endMs / 1000);
  return {
    domain,
    filename: `${meta.submitter}!${domain}!${begin}!${end}!${meta.reportId}.json.gz`,
    subject: `Report Domain: ${domain} Submitter: ${meta.submitter} Report-ID: <${meta.reportId}>`,
    submitter: meta.submitter,
    reportId: meta.reportId,
    json,
    gzip: gzipSync(Buffer.from(JSON.stringify(json))),
  };
}

/** The ports of {@link sendTlsReports}. */
export interface TlsReportPorts {
  /** Periods with counters before `beforePeriod`, not yet fully reported, oldest first. */
  pendingPeriods(beforePeriod: number): Promise<number[]>;
  /** The policy domains with counters in the period. */
  domains(period: number): Promise<string[]>;
  counts(period: number, domain: string): Promise<TlsRptCounts>;
  /** Takes the report of (period, domain): false when another run took it already. */
  claim(period: number, domain: string): Promise<boolean>;
  /** Gives a claim back (the report could not go out): the next run tries again. */
  release(period: number, domain: string): Promise<void>;
  /** Every domain of the period was reported (or has nowhere to go). */
  finish(period: number): Promise<void>;
  /** The `_smtp._tls.<domain>` TXT records; `null` when the lookup failed (try again later). */
  txt(name: string): Promise<string[] | null>;
  /**
   * Whether this process can send to the URI at all (a `mailto:` needs a configured sender):
   * URIs it cannot are left out, and a domain with none left is skipped, not retried forever.
   */
  canDeliver(uri: string): boolean;
  /** Delivers the period's report to one `rua` URI (`mailto:` or `https:`); throws when it did not go. */
  deliver(uri: string, report: TlsReportDelivery, period: number): Promise<void>;
  reportId(): string;
}

export interface TlsReportRun {
  sent: { domain: string; period: number; uris: string[] }[];
  /** Domains without a TLS-RPT record (or with none this process can send to): nothing to send. */
  skipped: number;
  /** Reports given back to try again (DNS or delivery failure). */
  failed: number;
}

/**
 * The daily report run (RFC 8460 section 5.1: one report per policy domain per day, sent once the
 * day is over): every finished period with counters, every domain in it, claimed first so two
 * schedulers — or a run repeated after a crash — send each report once.
 */
export async function sendTlsReports(
  ports: TlsReportPorts,
  opts: {
    nowMs: number;
    periodMs: number;
    /**
     * How long after its end a period is left alone: the workers flush their counts every second
     * or so, and a report sent before the last flush of its day would leave those sessions out.
     */
    settleMs?: number;
    organization: string;
    contact: string;
    submitter: string;
  },
): Promise<TlsReportRun> {
  const run: TlsReportRun = { sent: [], skipped: 0, failed: 0 };
  const current = Math.floor((opts.nowMs - (opts.settleMs ?? 0)) / opts.periodMs);
  for (const period of await ports.pendingPeriods(current)) {
    let retry = false;
    for (const domain of await ports.domains(period)) {
      if (!(await ports.claim(period, domain))) continue;
      const txt = await ports.txt(`_smtp._tls.${domain}`);
      if (txt === null) {
        await ports.release(period, domain);
        run.failed += 1;
        retry = true;
        continue;
      }
      const uris = tlsRptRua(txt)?.filter((uri) => ports.canDeliver(uri)) ?? [];
      if (uris.length === 0) {
        run.skipped += 1;
        continue;
      }
      const report = tlsReportDelivery(domain, await ports.counts(period, domain), {
        organization: opts.organization,
        contact: opts.contact,
        submitter: opts.submitter,
        reportId: ports.reportId(),
        startMs: period * opts.periodMs,
        endMs: (period + 1) * opts.periodMs,
      });
      // RFC 8460 section 5: the report goes to every rua URI; one that took it is enough
      const delivered: string[] = [];
      for (const uri of uris) {
        try {
          await ports.deliver(uri, report, period);
          delivered.push(uri);
        } catch {
          // the next URI; all failing gives the claim back
        }
      }
      if (delivered.length === 0) {
        await ports.release(period, domain);
        run.failed += 1;
        retry = true;
        continue;
      }
      run.sent.push({ domain, period, uris: delivered });
    }
    if (!retry) await ports.finish(period);
  }
  return run;
}
