/**
 * The daily TLS-RPT reports (RFC 8460 section 5): once a report day is over, every policy domain
 * direct delivery counted sessions for gets its aggregate report at the `rua` of its
 * `_smtp._tls.<domain>` TXT record — `https:` as a POST of the gzip JSON (section 5.3.2),
 * `mailto:` as an email with it attached (section 5.3.1) through Petrel's own send path
 * (TLS_RPT_FROM, TLS_RPT_TEAM_ID). core's `sendTlsReports` claims each (day, domain) first, so a
 * report goes once however many schedulers run; this is its composition and its two transports.
 */
import { request } from 'node:https';
import { lookup as dnsLookup } from 'node:dns/promises';
import { randomUUID } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import {
  acceptEmails,
  isForbiddenDestination,
  sendTlsReports,
  type AcceptPorts,
  type DnsPort,
  type TlsReportDelivery,
  type TlsReportPorts,
} from '@petrel/core';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { createDomainDns, type TlsRptStore } from '@petrel/store';
import type { Runtime } from '@petrel/runtime';
import { PetrelError } from '@petrel/contracts';
import { log, metrics, zeroSeries } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';
import type { SchedulerConfig } from './config.js';

interface TlsReportsDeps {
  store: TlsRptStore;
  dns: DnsPort;
  /** The accept path, for `mailto:` rua (absent: those are skipped). */
  accept?: () => Promise<AcceptPorts>;
  /** The team emailed reports are sent as when TLS_RPT_TEAM_ID is unset. */
  defaultTeam?: () => Promise<string>;
  clock: { now(): number };
}

interface TlsReportsSettings {
  dayMs: number;
  organization: string;
  contact: string;
  submitter: string;
  /** TLS_RPT_FROM and TLS_RPT_TEAM_ID: both, or emailed reports are not sent. */
  from?: string | undefined;
  teamId?: string | undefined;
  /** Extra trusted CA (PEM) for `https:` rua (test-only MTA_STS_CA_FILE). */
  extraCa?: string | undefined;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: a `https:` rua may be on a private network. */
  allowPrivateNetworks: boolean;
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** POSTs the gzip report (RFC 8460 section 5.3.2); resolves on a 2xx answer. */
async function postReport(uri: string, report: TlsReportDelivery, s: TlsReportsSettings): Promise<void> {
  const url = new URL(uri);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const { address } = await dnsLookup(host);
  // the URI comes from a recipient domain's DNS: never a way into our own network
  if (isForbiddenDestination(address, { allowPrivateNetworks: s.allowPrivateNetworks }))
    throw new Error(`${uri}: ${address} is not a public address`);
  await new Promise<void>((resolve, reject) => {
    const req = request(
      {
        host: address,
        port: url.port === '' ? 443 : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        servername: host,
        headers: {
          host: url.host,
          'content-type': 'application/tlsrpt+gzip',
          'content-length': report.gzip.length,
        },
        ...(s.extraCa !== undefined && { ca: [...rootCertificates, s.extraCa] }),
        timeout: s.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        agent: false,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new Error(`${uri} answered HTTP ${status}`));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${uri}: timed out`)));
    req.on('error', reject);
    req.end(report.gzip);
  });
}

/** Emails the report (RFC 8460 section 5.3.1) through the accept path, idempotent per report. */
async function mailReport(
  uri: string,
  report: TlsReportDelivery,
  period: number,
  deps: TlsReportsDeps,
  s: TlsReportsSettings,
): Promise<void> {
  if (!deps.accept || s.from === undefined) throw new Error('emailed TLS reports need TLS_RPT_FROM');
  const teamId = s.teamId ?? (await deps.defaultTeam?.());
  if (teamId === undefined) throw new Error('emailed TLS reports need TLS_RPT_TEAM_ID');
  const to = decodeURIComponent(uri.slice('mailto:'.length).split('?')[0]!);
  const res = await acceptEmails(
    {
      teamId,
      // the same report to the same address is accepted once, a rerun after a crash included
      idempotencyKey: `tlsrpt-${period}-${report.domain}-${to}`.slice(0, 256),
      now: new Date(deps.clock.now()),
      endpoint: 'single',
      mode: 'strict',
      body: {
        from: s.from,
        to,
        subject: report.subject,
        text: `This is an aggregate TLS report (RFC 8460) from ${s.submitter} for ${report.domain}.`,
        headers: { 'TLS-Report-Domain': report.domain, 'TLS-Report-Submitter': report.submitter },
        attachments: [
          {
            filename: report.filename,
            content: report.gzip.toString('base64'),
            content_type: 'application/tlsrpt+gzip',
          },
        ],
      },
    },
    await deps.accept(),
  );
  if (res.status !== 200) throw new Error(`the report email to ${to} was refused: ${res.body}`);
}

/** One run: every finished day's reports. */
async function runTlsReports(deps: TlsReportsDeps, s: TlsReportsSettings): Promise<void> {
  const ports: TlsReportPorts = {
    pendingPeriods: (before) => deps.store.pendingPeriods(before),
    domains: (p) => deps.store.domains(p),
    counts: (p, domain) => deps.store.counts(p, domain),
    claim: (p, domain) => deps.store.claim(p, domain),
    release: (p, domain) => deps.store.release(p, domain),
    finish: (p) => deps.store.finish(p),
    async txt(name) {
      const answer = await deps.dns.txt(name);
      return answer.kind === 'found' ? answer.values : answer.kind === 'none' ? [] : null;
    },
    async deliver(uri, report, period) {
      try {
        if (/^https:/i.test(uri)) await postReport(uri, report, s);
        else await mailReport(uri, report, period, deps, s);
      } catch (err) {
        log().warn({ err, uri, domain: report.domain }, 'TLS report not delivered to this rua');
        throw err;
      }
    },
    reportId: () => randomUUID(),
    // emailed reports need a sender; without TLS_RPT_FROM only https: rua get theirs
    canDeliver: (uri) => /^https:/i.test(uri) || (s.from !== undefined && deps.accept !== undefined),
  };
  const run = await sendTlsReports(ports, {
    nowMs: deps.clock.now(),
    periodMs: s.dayMs,
    // the workers flush their counts every second: a day is reported a minute after it ends
    settleMs: Math.min(60_000, Math.floor(s.dayMs / 2)),
    organization: s.organization,
    contact: s.contact,
    submitter: s.submitter,
  });
  metrics.tlsReportsSent().inc({ outcome: 'sent' }, run.sent.length);
  metrics.tlsReportsSent().inc({ outcome: 'skipped' }, run.skipped);
  metrics.tlsReportsSent().inc({ outcome: 'failed' }, run.failed);
  for (const r of run.sent) log().info({ domain: r.domain, rua: r.uris }, 'TLS report sent');
}

function startTlsReports(deps: TlsReportsDeps, s: TlsReportsSettings, intervalMs: number): IntervalLoop {
  return startIntervalLoop(
    () => runTlsReports(deps, s),
    intervalMs,
    (err) => log().warn({ err }, 'TLS report run failed; trying again next interval'),
  );
}

/**
 * The scheduler's report run from its configuration (TLS_RPT…, DNS_SERVERS): the counters the
 * workers write, and for emailed reports the accept path of POST /emails over the same stores
 * and send queues (its stages hold a report email to the rules of any other).
 */
export function startTlsReportsFor(config: SchedulerConfig, rt: Runtime): IntervalLoop | undefined {
  if (!config.TLS_RPT) return undefined;
  zeroSeries(metrics.tlsReportsSent(), { outcome: ['sent', 'skipped', 'failed'] });
  const dayMs = config.TLS_RPT_DAY_S * 1000;
  let accept: Promise<AcceptPorts> | undefined;
  const refuseUrls = {
    // a report carries its file as content: a URL attachment is never asked for
    fetch: () => Promise.reject(new PetrelError('invalid_attachment', 'attachments: no URLs in reports')),
  };
  const submitter = config.DIRECT_HELO_NAME ?? hostname();
  const extraCa =
    config.MTA_STS_CA_FILE !== undefined ? readFileSync(config.MTA_STS_CA_FILE, 'utf8') : undefined;
  return startTlsReports(
    {
      store: rt.stores.tlsRpt,
      dns: createDomainDns({ servers: config.DNS_SERVERS }),
      clock: Date,
      defaultTeam: () => rt.stores.apiKeys.ensureDefaultTeam(),
      // the accept path of POST /emails; a report counts in no quota and needs no verified domain
      accept: () =>
        (accept ??= rt.acceptance({
          preparer: rt.preparer({
            attachments: refuseUrls,
            enforceVerifiedDomains: false,
            dailyQuota: 0,
            onDailyQuotaRefused: () => undefined,
          }),
        })),
    },
    {
      dayMs,
      organization: config.TLS_RPT_ORG_NAME,
      contact: config.TLS_RPT_CONTACT ?? config.TLS_RPT_FROM ?? `postmaster@${submitter}`,
      submitter,
      from: config.TLS_RPT_FROM,
      teamId: config.TLS_RPT_TEAM_ID,
      extraCa,
      allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    },
    Math.min(config.TLS_RPT_INTERVAL_S * 1000, dayMs),
  );
}
