/**
 * The daily TLS-RPT reports (RFC 8460 section 5): once a report day is over, every policy domain
 * direct delivery counted sessions for gets its aggregate report at the `rua` of its
 * `_smtp._tls.<domain>` TXT record — `https:` as a POST of the gzip JSON (section 5.3.2,
 * tls-report-post.ts), `mailto:` as an email with it attached (section 5.3.1) through Petrel's own
 * send path (TLS_RPT_FROM, TLS_RPT_TEAM_ID). The run is core's `runTlsReports`; this is its
 * composition, its metrics and its loop.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { runTlsReports, type AcceptPorts, type TlsReportRunPorts } from '@petrel/core';
import { createDomainDns } from '@petrel/store';
import type { Runtime } from '@petrel/runtime';
import { PetrelError } from '@petrel/contracts';
import { log, metrics, zeroSeries } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';
import { postTlsReport } from './tls-report-post.js';
import type { SchedulerConfig } from './config.js';

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
  const post = {
    extraCa: config.MTA_STS_CA_FILE !== undefined ? readFileSync(config.MTA_STS_CA_FILE, 'utf8') : undefined,
    allowPrivateNetworks: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  };
  const teamId = config.TLS_RPT_TEAM_ID;
  const ports: TlsReportRunPorts = {
    counters: rt.stores.tlsRpt,
    dns: createDomainDns({ servers: config.DNS_SERVERS }),
    post: (uri, report) => postTlsReport(uri, report, post),
    // emailed reports need a sender; without TLS_RPT_FROM only https: rua get theirs
    mail:
      config.TLS_RPT_FROM === undefined
        ? undefined
        : {
            from: config.TLS_RPT_FROM,
            teamId: async () => teamId ?? (await rt.stores.apiKeys.ensureDefaultTeam()),
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
    reportId: () => randomUUID(),
    clock: Date,
    undelivered: (err, uri, report) =>
      log().warn({ err, uri, domain: report.domain }, 'TLS report not delivered to this rua'),
  };
  const settings = {
    periodMs: dayMs,
    organization: config.TLS_RPT_ORG_NAME,
    contact: config.TLS_RPT_CONTACT ?? config.TLS_RPT_FROM ?? `postmaster@${submitter}`,
    submitter,
  };
  return startIntervalLoop(
    async () => {
      const run = await runTlsReports(ports, settings);
      metrics.tlsReportsSent().inc({ outcome: 'sent' }, run.sent.length);
      metrics.tlsReportsSent().inc({ outcome: 'skipped' }, run.skipped);
      metrics.tlsReportsSent().inc({ outcome: 'failed' }, run.failed);
      for (const r of run.sent) log().info({ domain: r.domain, rua: r.uris }, 'TLS report sent');
    },
    Math.min(config.TLS_RPT_INTERVAL_S * 1000, dayMs),
    (err) => log().warn({ err }, 'TLS report run failed; trying again next interval'),
  );
}
