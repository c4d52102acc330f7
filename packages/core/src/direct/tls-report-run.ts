/**
 * One run of the daily TLS-RPT reports (RFC 8460 section 5) over the transports a process has:
 * `https:` rua get the gzip JSON POSTed (section 5.3.2, the `post` port), `mailto:` rua an email
 * with it attached (section 5.3.1) through the accept path of POST /emails — so its stages hold a
 * report email to the rules of any other. `sendTlsReports` claims each (day, domain) first, so a
 * report goes once however many schedulers run.
 */
import { acceptEmails } from '../accept/accept-emails.js';
import type { AcceptPorts } from '../accept/ports.js';
import type { Clock } from '../kernel/clock.js';
import type { DnsPort } from '../domains/verify-domain.js';
import { sendTlsReports, type TlsReportDelivery, type TlsReportPorts, type TlsReportRun } from './tls-rpt.js';

/** What emailed reports need: without it `mailto:` rua are left out (https: ones still get theirs). */
export interface TlsReportMail {
  /** TLS_RPT_FROM. */
  from: string;
  /** The team the emails are sent as (TLS_RPT_TEAM_ID, else the default team). */
  teamId(): Promise<string | undefined>;
  accept(): Promise<AcceptPorts>;
}

export interface TlsReportRunPorts {
  /** The counters the workers write, and the claims of the reports. */
  counters: Pick<TlsReportPorts, 'pendingPeriods' | 'domains' | 'counts' | 'claim' | 'release' | 'finish'>;
  dns: Pick<DnsPort, 'txt'>;
  /** POSTs the report to an `https:` rua; throws when it was not taken (not a 2xx). */
  post(uri: string, report: TlsReportDelivery): Promise<void>;
  mail?: TlsReportMail | undefined;
  reportId(): string;
  clock: Pick<Clock, 'now'>;
  /** A rua that did not take its report (another rua may have). */
  undelivered?(err: unknown, uri: string, report: TlsReportDelivery): void;
}

export interface TlsReportRunSettings {
  /** The report day (TLS_RPT_DAY_S; a day in production). */
  periodMs: number;
  organization: string;
  contact: string;
  submitter: string;
}

const isHttps = (uri: string): boolean => /^https:/i.test(uri);

/** Every finished day's reports; a `mailto:` rua only with {@link TlsReportMail}. */
export function runTlsReports(ports: TlsReportRunPorts, s: TlsReportRunSettings): Promise<TlsReportRun> {
  const { counters, mail } = ports;
  return sendTlsReports(
    {
      pendingPeriods: (before) => counters.pendingPeriods(before),
      domains: (p) => counters.domains(p),
      counts: (p, domain) => counters.counts(p, domain),
      claim: (p, domain) => counters.claim(p, domain),
      release: (p, domain) => counters.release(p, domain),
      finish: (p) => counters.finish(p),
      async txt(name) {
        // no record is an answer (nothing to send); DNS trouble is not (the run tries again)
        const answer = await ports.dns.txt(name);
        return answer.kind === 'found' ? answer.values : answer.kind === 'none' ? [] : null;
      },
      async deliver(uri, report, period) {
        try {
          if (isHttps(uri)) await ports.post(uri, report);
          else await mailTlsReport(uri, report, period, mail!, ports.clock);
        } catch (err) {
          ports.undelivered?.(err, uri, report);
          throw err;
        }
      },
      reportId: () => ports.reportId(),
      canDeliver: (uri) => isHttps(uri) || mail !== undefined,
    },
    {
      nowMs: ports.clock.now(),
      periodMs: s.periodMs,
      // the workers flush their counts every second: a day is reported a minute after it ends
      settleMs: Math.min(60_000, Math.floor(s.periodMs / 2)),
      organization: s.organization,
      contact: s.contact,
      submitter: s.submitter,
    },
  );
}

/** The email of RFC 8460 section 5.3.1 to one `mailto:` rua (RFC 6068: the address before any `?`). */
export function tlsReportEmail(
  uri: string,
  report: TlsReportDelivery,
  period: number,
  from: string,
): { to: string; idempotencyKey: string; body: Record<string, unknown> } {
  const to = decodeURIComponent(uri.slice('mailto:'.length).split('?')[0]!);
  return {
    to,
    // the same report to the same address is accepted once, a rerun after a crash included
    idempotencyKey: `tlsrpt-${period}-${report.domain}-${to}`.slice(0, 256),
    body: {
      from,
      to,
      subject: report.subject,
      text: `This is an aggregate TLS report (RFC 8460) from ${report.submitter} for ${report.domain}.`,
      headers: { 'TLS-Report-Domain': report.domain, 'TLS-Report-Submitter': report.submitter },
      attachments: [
        {
          filename: report.filename,
          content: report.gzip.toString('base64'),
          content_type: 'application/tlsrpt+gzip',
        },
      ],
    },
  };
}

/** Emails the report through the accept path, idempotent per report and address. */
async function mailTlsReport(
  uri: string,
  report: TlsReportDelivery,
  period: number,
  mail: TlsReportMail,
  clock: Pick<Clock, 'now'>,
): Promise<void> {
  const teamId = await mail.teamId();
  if (teamId === undefined) throw new Error('emailed TLS reports need TLS_RPT_TEAM_ID');
  const { to, idempotencyKey, body } = tlsReportEmail(uri, report, period, mail.from);
  const res = await acceptEmails(
    { teamId, idempotencyKey, clock, endpoint: 'single', mode: 'strict', body },
    await mail.accept(),
  );
  if (res.status !== 200) throw new Error(`the report email to ${to} was refused: ${res.body}`);
}
