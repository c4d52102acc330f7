/**
 * The send workers of one process: a BullMQ Worker per queue of each lane (transactional,
 * broadcast; QUEUE_SHARDS queues each) sharing one pooled SMTP transport, each running
 * packages/core's deliver-email use-case with the Redis stores, the mailer and the observability
 * package wired into its ports. Retries use the
 * `smtp-retry` backoff strategy: the configured ladder with jitter, honouring "try again in N
 * seconds" hints.
 */
import { performance } from 'node:perf_hooks';
import { newId, trackingLinks, unsubscribeLinks, type DeliverStage } from '@petrel/core';
import {
  BroadcastsStore,
  ContactImportsStore,
  ContactPropertiesStore,
  ContactsStore,
  DomainKeyCipher,
  DomainsStore,
  EmailsStore,
  Keys,
  RecipientStatesStore,
  SuppressionsStore,
  TeamSettingsStore,
  TemplatesStore,
  createRedis,
  domainKeySecret,
  pingRedis,
  unsubscribeSecret,
} from '@petrel/store';
import { createDkimSigner } from '@petrel/mailer';
import { createContactImportWorker, createSendWorkers, type Worker } from '@petrel/queue';
import { startAutomationEngine } from './automation-engine.js';
import { startInboxAgent } from './inbox-agent.processor.js';
import { log, logConnectionError, metrics, zeroSeries } from '@petrel/observability';
import { LANE_QUEUE, SEND_LANES, type SendJob } from '@petrel/contracts';
import { emailRetentionMs, emailStoreOptions, publicUrl } from '@petrel/config';
import { deliverEmailProcessor } from './deliver-email.processor.js';
import { createLaneSenders } from './senders.js';
import { contactImportProcessor } from './contact-import.processor.js';
import { deliverObserver } from './deliver-observer.js';
import { SoftFailError } from './job-result.js';
import { mimeBuilderFor } from './mime-builder.js';
import { outcomeWriter } from './outcome-writer.js';
import { retrySchedule, smtpRetryBackoff } from './retry-backoff.js';
import type { WorkerConfig } from './config.js';

export interface WorkerHandle {
  workers: Worker<SendJob>[];
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface WorkerExtensions {
  /** Replaces the delivery stages (default: DELIVERY_STAGES), e.g. to add one under test. */
  stages?: readonly DeliverStage[];
}

export async function startWorker(config: WorkerConfig, ext: WorkerExtensions = {}): Promise<WorkerHandle> {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the worker');
  if (config.DELIVERY_MODE === 'relay' && !config.SMTP_URL)
    throw new Error('SMTP_URL is required to start the worker (DELIVERY_MODE=relay)');
  const redis = createRedis(
    config.REDIS_URL,
    'command',
    'petrel-worker',
    logConnectionError('petrel-worker'),
  );
  const bullConnection = createRedis(
    config.REDIS_URL,
    'blocking',
    'petrel-worker-bull',
    logConnectionError('petrel-worker-bull'),
  );
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const emails = new EmailsStore(redis, keys, emailRetentionMs(config), emailStoreOptions(config));
  // Relay: one SMTP pool per lane; direct: one MX sender shared by the lanes (senders.ts).
  const senders = createLaneSenders(config, { redis, keys });
  const schedule = retrySchedule(config.RETRY_SCHEDULE_S);
  const retentionMs = emailRetentionMs(config);
  const templates = new TemplatesStore(redis, keys, retentionMs);
  if (!config.PUBLIC_URL) {
    log().warn(
      { publicUrl: publicUrl(config) },
      'PUBLIC_URL is unset: unsubscribe links in emails point to the API on localhost',
    );
  }
  const ports = {
    emails,
    outcomes: outcomeWriter(emails),
    templates,
    mime: mimeBuilderFor(config.BOUNCE_DOMAIN),
    clock: { now: () => Date.now(), monotonicMs: () => performance.now() },
    ids: { newEventId: () => newId() },
    retries: schedule.length,
    // resend.dev test addresses are always simulated; SIMULATOR_DOMAIN adds the operator's own
    simulatorDomain: config.SIMULATOR_DOMAIN,
    recipients: new RecipientStatesStore(redis, keys),
    suppressions: new SuppressionsStore(redis, keys),
    unsubscribe: unsubscribeLinks({
      secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
      publicUrl: publicUrl(config),
      now: () => Date.now(),
    }),
    // read only for broadcast emails: a plain send makes no extra round trip
    broadcasts: new BroadcastsStore(redis, keys),
    contacts: new ContactsStore(redis, keys),
    contactProperties: new ContactPropertiesStore(redis, keys),
    // open/click tracking: the team's switches cached a few seconds (read for every email), and
    // links signed with the unsubscribe links' key (tokens of each kind never pass for the other)
    tracking: {
      settings: new TeamSettingsStore(redis, keys),
      links: trackingLinks({
        secret: await unsubscribeSecret(redis, keys, config.UNSUBSCRIBE_SECRET),
        publicUrl: publicUrl(config),
        now: () => Date.now(),
      }),
    },
    // DKIM: the from-domain's keys decrypted once per process (cached 30 s), signed in-process
    domains: new DomainsStore(redis, keys, {
      cipher: new DomainKeyCipher(await domainKeySecret(redis, keys, config.DOMAIN_KEY_SECRET)),
    }),
    signer: createDkimSigner(),
  };

  // One BullMQ Worker per queue of each lane (every shard, and the previous layout's while
  // QUEUE_SHARDS changes): every process consumes every shard. createSendWorkers splits
  // WORKER_CONCURRENCY over a lane's queues, so a process still runs at most that many jobs of a
  // lane at once, and WORKER_SEND_RATE likewise, so it stays the lane's rate across processes.
  const workers = SEND_LANES.flatMap((lane) => {
    // Metrics name the lane's queues by their base name, whatever the shards.
    const queue = LANE_QUEUE[lane];
    zeroSeries(metrics.jobsProcessed(), { queue: [queue], result: ['completed', 'stalled'] });
    return createSendWorkers(
      lane,
      deliverEmailProcessor(
        { ...ports, smtp: senders.byLane.get(lane)!, observer: deliverObserver(lane) },
        ext.stages,
      ),
      {
        connection: bullConnection,
        prefix: keys.bullPrefix(),
        shards: config.QUEUE_SHARDS,
        previousShards: config.QUEUE_SHARDS_PREVIOUS,
        concurrency: lane === 'broadcast' ? config.WORKER_BROADCAST_CONCURRENCY : config.WORKER_CONCURRENCY,
        sendRate: config.WORKER_SEND_RATE,
        lockDuration: config.WORKER_LOCK_DURATION_MS,
        stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
        maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
        settings: {
          backoffStrategy: smtpRetryBackoff(schedule, config.RETRY_TIME_SCALE),
        },
      },
    ).map((w) => {
      w.on('failed', (job, err) => {
        if (!(err instanceof SoftFailError))
          log().warn({ jobId: job?.id, err: err.message }, 'send job failed');
      });
      w.on('completed', () => metrics.jobsProcessed().inc({ queue, result: 'completed' }));
      w.on('error', (err) => log().error({ err }, 'worker error'));
      w.on('stalled', (jobId) => {
        metrics.jobsProcessed().inc({ queue, result: 'stalled' });
        log().warn(
          { jobId },
          'send job stalled (its worker stopped without finishing it); put back to be retried',
        );
      });
      return w;
    });
  });
  log().info(
    {
      concurrency: config.WORKER_CONCURRENCY,
      broadcastConcurrency: config.WORKER_BROADCAST_CONCURRENCY,
      delivery: config.DELIVERY_MODE,
      // relay: connections per lane; direct: the ceiling per MX host
      pool: config.DELIVERY_MODE === 'relay' ? config.SMTP_POOL_SIZE : config.DIRECT_MAX_CONNECTIONS_PER_HOST,
      shards: config.QUEUE_SHARDS,
      ...(config.QUEUE_SHARDS_PREVIOUS !== undefined && { previousShards: config.QUEUE_SHARDS_PREVIOUS }),
      queues: workers.length,
    },
    'send workers started',
  );

  // Contact imports: their own queue, CONTACT_IMPORT_CONCURRENCY at a time. On shutdown a running
  // import stops at its next checkpoint and goes back to the queue (see the processor).
  let stopping = false;
  const importWorker = createContactImportWorker(
    contactImportProcessor({
      imports: new ContactImportsStore(redis, keys),
      contacts: new ContactsStore(redis, keys),
      stopping: () => stopping,
    }),
    {
      connection: bullConnection,
      prefix: keys.bullPrefix(),
      concurrency: config.CONTACT_IMPORT_CONCURRENCY,
      lockDuration: config.WORKER_LOCK_DURATION_MS,
      stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
    },
  );
  importWorker.on('error', (err) => log().error({ err }, 'contact import worker error'));
  importWorker.on('stalled', (jobId) =>
    log().warn({ jobId }, 'contact import stalled (its worker stopped); it resumes from its checkpoint'),
  );

  // Automation runs: their own queue, AUTOMATION_CONCURRENCY jobs at a time (automation-engine.ts).
  const automations = await startAutomationEngine(config, { redis, bullConnection, keys, templates });
  // Inbox agent runs: their own queue, only with a model endpoint (inbox-agent.processor.ts).
  const agent = await startInboxAgent(config, { redis, bullConnection, keys, templates });

  return {
    workers,
    ready: () => pingRedis(redis),
    async close() {
      // Stop taking jobs and let in-flight sends finish (a running import stops at its next
      // checkpoint), then close the transport and Redis.
      stopping = true;
      await Promise.all([
        ...workers.map((w) => w.close()),
        importWorker.close(),
        automations.close(),
        agent?.close(),
      ]);
      await Promise.all(senders.all.map((s) => s.close()));
      await Promise.all([redis.quit().catch(() => undefined), bullConnection.quit().catch(() => undefined)]);
    },
  };
}
