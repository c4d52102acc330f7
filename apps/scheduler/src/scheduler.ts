/**
 * The scheduler process's components on a runtime: housekeeping, the outbox relay, the
 * stuck-email watchdog, the broadcast fan-out worker (broadcast-fanout.ts), the domains' DNS
 * checks, the TLS-RPT reports and the metrics sampler. Scheduled emails themselves are delayed
 * BullMQ jobs (job id = email id), promoted by BullMQ. Used by `main.ts` (a scheduler alone) and
 * by the all-in-one launcher, which hands it the process's runtime.
 */
import { domainDnsTargets, emailRetentionMs, fanoutPaceRule } from '@petrel/config';
import { systemClock } from '@petrel/core';
import { createDomainDns } from '@petrel/store';
import { partStart, type Runtime } from '@petrel/runtime';
import { housekeepingObserver, startHousekeeping } from './housekeeping.js';
import { startMetricsSampler } from './metrics-sampler.js';
import { startPreviousShardsWatch } from './previous-shards.js';
import { outboxRelayObserver, startOutboxRelay } from './outbox-relay.js';
import { fanoutPacer, startBroadcastFanout } from './broadcast-fanout.js';
import { startDomainVerify } from './domain-verify.js';
import { startTlsReportsFor } from './tls-reports.js';
import { queuedImportsPort, sendJobsPort, startWatchdog } from './watchdog.js';
import type { SchedulerConfig } from './config.js';

/** The scheduler on the all-in-one's runtime (`shared`), or on one of its own (partStart). */
export const startScheduler = partStart(
  'scheduler',
  'the scheduler',
  async (config: SchedulerConfig, rt: Runtime) => {
    const s = rt.stores;
    const queues = rt.queues.send;
    const housekeeping = startHousekeeping({
      ports: {
        teams: s.apiKeys,
        listings: s.emails,
        queues,
        observer: housekeepingObserver,
        clock: systemClock,
      },
      retentionMs: emailRetentionMs(config),
      intervalMs: config.HOUSEKEEPING_INTERVAL_S * 1000,
    });
    const sampler = await startMetricsSampler({
      redis: rt.redis,
      queues,
      intervalMs: config.METRICS_SAMPLE_INTERVAL_S * 1000,
    });
    const outboxRelay = startOutboxRelay({
      ports: {
        teams: s.apiKeys,
        outbox: s.outbox,
        queues,
        observer: outboxRelayObserver,
        clock: systemClock,
      },
      graceMs: config.OUTBOX_GRACE_MS,
    });
    // Stuck emails: lost jobs re-enqueued once, hopeless ones failed with the reason. The
    // watchdog's events go through the one event script, hourly counters included.
    const watchdog = startWatchdog({
      ports: {
        teams: s.apiKeys,
        unfinished: s.watchdog,
        jobs: sendJobsPort(queues),
        imports: queuedImportsPort(s.watchdog, rt.queues.imports),
      },
      intervalMs: config.WATCHDOG_INTERVAL_S * 1000,
      stuckAfterMs: config.WATCHDOG_STUCK_AFTER_S * 1000,
      ...(config.RETRY_SCHEDULE_S && { retrySchedule: config.RETRY_SCHEDULE_S.split(',').map(Number) }),
      retryTimeScale: config.RETRY_TIME_SCALE,
    });
    // Broadcast fan-outs: a BullMQ Worker on the process's blocking connection.
    const fanout = startBroadcastFanout(
      {
        broadcasts: s.broadcasts,
        members: s.segmentMembers,
        recipients: s.recipientStates,
        emails: s.broadcastEmails,
        contactProperties: s.contactProperties,
        clock: systemClock,
        // adaptive pacing: the transactional lane's waiting + running jobs before each page
        pacer: fanoutPacer(fanoutPaceRule(config), () => queues.busy('send')),
      },
      {
        connection: rt.connection('bull'),
        prefix: rt.keys.bullPrefix(),
        concurrency: config.FANOUT_CONCURRENCY,
        lockDurationMs: config.FANOUT_LOCK_DURATION_MS,
        stalledIntervalMs: config.FANOUT_STALLED_INTERVAL_MS,
      },
    );
    // Domains: every one's DNS records looked up again each DOMAIN_VERIFY_INTERVAL_S.
    const domainVerify = startDomainVerify(
      {
        domains: s.domains,
        dns: createDomainDns({ servers: config.DNS_SERVERS }),
        targets: domainDnsTargets(config),
        clock: Date,
      },
      config.DOMAIN_VERIFY_INTERVAL_S * 1000,
    );
    // TLS-RPT (RFC 8460): the daily reports of what direct delivery counted (tls-reports.ts).
    const tlsReports = startTlsReportsFor(config, rt);
    const previousShards =
      config.QUEUE_SHARDS_PREVIOUS === undefined
        ? undefined
        : startPreviousShardsWatch(
            queues,
            config.QUEUE_SHARDS_PREVIOUS,
            config.HOUSEKEEPING_INTERVAL_S * 1000,
          );
    return {
      async close() {
        await fanout.close();
        await previousShards?.stop();
        await watchdog.stop();
        await outboxRelay.stop();
        await housekeeping.stop();
        await domainVerify.stop();
        await tlsReports?.stop();
        await sampler.stop();
      },
    };
  },
);
