/**
 * The scheduler process's components: housekeeping, the outbox relay and the broadcast fan-out
 * worker (broadcast-fanout.ts). Scheduled emails themselves are delayed BullMQ jobs (job id = email id),
 * promoted by BullMQ.
 */
import { emailRetentionMs, emailStoreOptions } from '@petrel/config';
import {
  ApiKeysStore,
  BroadcastEmailsStore,
  BroadcastsStore,
  ContactPropertiesStore,
  EmailsStore,
  RecipientStatesStore,
  SegmentMembersStore,
  IdempotencyStore,
  DomainsStore,
  Keys,
  OutboxStore,
  createDomainDns,
  WatchdogStore,
  createRedis,
  pingRedis,
  type RedisClient,
} from '@petrel/store';
import { ContactImportQueue, SendQueues } from '@petrel/queue';
import { logConnectionError } from '@petrel/observability';
import { housekeepingObserver, startHousekeeping } from './housekeeping.js';
import { startMetricsSampler } from './metrics-sampler.js';
import { startPreviousShardsWatch } from './previous-shards.js';
import { outboxRelayObserver, startOutboxRelay } from './outbox-relay.js';
import { startBroadcastFanout } from './broadcast-fanout.js';
import { startDomainVerify } from './domain-verify.js';
import { startTlsReportsFor } from './tls-reports.js';
import { domainDnsTargets } from '@petrel/config';
import { queuedImportsPort, sendJobsPort, startWatchdog } from './watchdog.js';
import type { SchedulerConfig } from './config.js';

/**
 * The scheduler's email records, as `startScheduler` builds them: the listings housekeeping
 * trims, and the watchdog's store, whose events go through the one event script of every
 * process, hourly counters included, so it is built with the same options (their retention).
 */
export function schedulerEmailStores(redis: RedisClient, config: SchedulerConfig) {
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const emails = new EmailsStore(redis, keys, emailRetentionMs(config), emailStoreOptions(config));
  return { emails, watchdog: new WatchdogStore(redis, keys, emails) };
}

export async function startScheduler(config: SchedulerConfig) {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the scheduler');
  const redis = createRedis(
    config.REDIS_URL,
    'command',
    'petrel-scheduler',
    logConnectionError('petrel-scheduler'),
  );
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const retentionMs = emailRetentionMs(config);
  const stores = schedulerEmailStores(redis, config);
  const queues = new SendQueues(redis, {
    prefix: keys.bullPrefix(),
    shards: config.QUEUE_SHARDS,
    previousShards: config.QUEUE_SHARDS_PREVIOUS,
  });
  const housekeeping = startHousekeeping({
    ports: {
      teams: new ApiKeysStore(redis, keys),
      listings: stores.emails,
      queues,
      observer: housekeepingObserver,
    },
    retentionMs,
    intervalMs: config.HOUSEKEEPING_INTERVAL_S * 1000,
  });
  const sampler = await startMetricsSampler({
    redis,
    queues,
    intervalMs: config.METRICS_SAMPLE_INTERVAL_S * 1000,
  });
  const outboxRelay = startOutboxRelay({
    ports: {
      teams: new ApiKeysStore(redis, keys),
      outbox: new OutboxStore(redis, keys, new IdempotencyStore(redis, keys)),
      queues,
      observer: outboxRelayObserver,
    },
    graceMs: config.OUTBOX_GRACE_MS,
  });
  // Stuck emails: lost jobs re-enqueued once, hopeless ones failed with the reason.
  const watchdogStore = stores.watchdog;
  const importQueue = new ContactImportQueue(redis, { prefix: keys.bullPrefix() });
  const watchdog = startWatchdog({
    ports: {
      teams: new ApiKeysStore(redis, keys),
      unfinished: watchdogStore,
      jobs: sendJobsPort(queues),
      imports: queuedImportsPort(watchdogStore, importQueue),
    },
    intervalMs: config.WATCHDOG_INTERVAL_S * 1000,
    stuckAfterMs: config.WATCHDOG_STUCK_AFTER_S * 1000,
    ...(config.RETRY_SCHEDULE_S && { retrySchedule: config.RETRY_SCHEDULE_S.split(',').map(Number) }),
    retryTimeScale: config.RETRY_TIME_SCALE,
  });
  // Broadcast fan-outs: a BullMQ Worker needs a blocking connection of its own.
  const bullConnection = createRedis(
    config.REDIS_URL,
    'blocking',
    'petrel-scheduler-bull',
    logConnectionError('petrel-scheduler-bull'),
  );
  const fanout = startBroadcastFanout(
    {
      broadcasts: new BroadcastsStore(redis, keys),
      members: new SegmentMembersStore(redis, keys),
      recipients: new RecipientStatesStore(redis, keys),
      emails: new BroadcastEmailsStore(
        redis,
        keys,
        queues,
        retentionMs,
        Date,
        emailStoreOptions(config).statsRetentionMs,
      ),
      contactProperties: new ContactPropertiesStore(redis, keys),
      clock: { now: () => Date.now(), monotonicMs: () => performance.now() },
    },
    {
      connection: bullConnection,
      prefix: keys.bullPrefix(),
      concurrency: config.FANOUT_CONCURRENCY,
      lockDurationMs: config.FANOUT_LOCK_DURATION_MS,
      stalledIntervalMs: config.FANOUT_STALLED_INTERVAL_MS,
    },
  );
  // Domains: every one's DNS records looked up again each DOMAIN_VERIFY_INTERVAL_S.
  const domainVerify = startDomainVerify(
    {
      domains: new DomainsStore(redis, keys),
      dns: createDomainDns({ servers: config.DNS_SERVERS }),
      targets: domainDnsTargets(config),
      clock: Date,
    },
    config.DOMAIN_VERIFY_INTERVAL_S * 1000,
  );
  // TLS-RPT (RFC 8460): the daily reports of what direct delivery counted (tls-reports.ts).
  const tlsReports = startTlsReportsFor(config, { redis, keys, queues });
  const previousShards =
    config.QUEUE_SHARDS_PREVIOUS === undefined
      ? undefined
      : startPreviousShardsWatch(queues, config.QUEUE_SHARDS_PREVIOUS, config.HOUSEKEEPING_INTERVAL_S * 1000);
  return {
    ready: () => pingRedis(redis),
    async close() {
      await fanout.close();
      await previousShards?.stop();
      await watchdog.stop();
      await importQueue.close();
      await outboxRelay.stop();
      await housekeeping.stop();
      await domainVerify.stop();
      await tlsReports?.stop();
      await sampler.stop();
      await queues.close();
      await redis.quit().catch(() => undefined);
      await bullConnection.quit().catch(() => undefined);
    },
  };
}
