/**
 * The automation engine in a worker process: the BullMQ worker of the automation queue running
 * the automation processor over the Redis stores, the automation queue (next steps), and the
 * acceptance ports every producer shares (accept-ports.ts: records, outbox, send jobs), so a
 * send_email step's email enters exactly as a POST /emails one does.
 */
import type { EnginePorts } from '@petrel/core';
import {
  AutomationRunsStore,
  AutomationsStore,
  ContactPropertiesStore,
  ContactsStore,
  type Keys,
  type RedisClient,
  type TemplatesStore,
} from '@petrel/store';
import { AutomationQueue, SendQueues, createAutomationWorker, type QueueConnection } from '@petrel/queue';
import { log, metrics } from '@petrel/observability';
import { automationProcessor } from './automation.processor.js';
import { workerAcceptPorts } from './accept-ports.js';
import type { WorkerConfig } from './config.js';

/**
 * How long a step's acceptance holds its Idempotency-Key. A step's email has no remote
 * attachments, so an acceptance takes milliseconds; a worker killed mid-acceptance delays the
 * step's retry by at most this. Short is safe: a retry that takes over a live claim recomputes the
 * same email id (the claim's start is kept), and recording or queuing an email twice is one email.
 */
export const AUTOMATION_ACCEPT_LOCK_MS = 5_000;

export async function startAutomationEngine(
  config: WorkerConfig,
  deps: { redis: RedisClient; bullConnection: QueueConnection; keys: Keys; templates: TemplatesStore },
): Promise<{ close(): Promise<void> }> {
  const { redis, keys } = deps;
  const queue = new AutomationQueue(redis, { prefix: keys.bullPrefix() });
  const sendQueues = new SendQueues(redis, {
    prefix: keys.bullPrefix(),
    shards: config.QUEUE_SHARDS,
    previousShards: config.QUEUE_SHARDS_PREVIOUS,
  });
  await Promise.all([queue.ready(), sendQueues.ready()]);
  const ports: EnginePorts = {
    automations: new AutomationsStore(redis, keys),
    runs: new AutomationRunsStore(redis, keys, config.AUTOMATION_RUN_RETENTION_DAYS * 86_400_000),
    queue,
    contacts: new ContactsStore(redis, keys),
    properties: new ContactPropertiesStore(redis, keys),
    accept: workerAcceptPorts(config, {
      redis,
      keys,
      templates: deps.templates,
      queues: sendQueues,
      acceptLockMs: AUTOMATION_ACCEPT_LOCK_MS,
    }),
    clock: Date,
    observer: {
      runStarted: () => metrics.automationRunsStarted().inc(),
      runCompleted: () => metrics.automationRunsCompleted().inc(),
      runFailed: () => metrics.automationRunsFailed().inc(),
    },
  };
  // the counters exist from the start (at 0), so rates and alerts see them before the first run
  metrics.automationRunsStarted();
  metrics.automationRunsCompleted();
  metrics.automationRunsFailed();
  const worker = createAutomationWorker(automationProcessor(ports), {
    connection: deps.bullConnection,
    prefix: keys.bullPrefix(),
    concurrency: config.AUTOMATION_CONCURRENCY,
    lockDuration: config.WORKER_LOCK_DURATION_MS,
    stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
  });
  worker.on('error', (err) => log().error({ err }, 'automation worker error'));
  worker.on('failed', (job, err) =>
    log().warn({ jobId: job?.id, err: err.message }, 'automation job failed'),
  );
  worker.on('stalled', (jobId) =>
    log().warn({ jobId }, 'automation job stalled (its worker stopped); it runs again, safely'),
  );
  return {
    async close() {
      await worker.close();
      await Promise.all([queue.close(), sendQueues.close()]);
    },
  };
}
