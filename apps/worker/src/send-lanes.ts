/**
 * The send workers of one process: a BullMQ Worker per queue of each lane (transactional,
 * broadcast; QUEUE_SHARDS queues each, and the previous layout's while QUEUE_SHARDS changes), each
 * running core's deliver-email use-case over its lane's SMTP sender. Retries use the `smtp-retry`
 * backoff strategy: the configured ladder with jitter, honouring "try again in N seconds" hints.
 */
import { broadcastLaneYieldRule } from '@petrel/config';
import type { DeliverStage } from '@petrel/core';
import { LANE_QUEUE, SEND_LANES, type SendQueueJob } from '@petrel/contracts';
import { createSendWorkers, type QueueConnection, type SendQueues, type Worker } from '@petrel/queue';
import { log, metrics, zeroSeries } from '@petrel/observability';
import type { WorkerConfig } from './config.js';
import type { LaneIndependentDeliverDeps } from './delivery-ports.js';
import { deliverEmailProcessor } from './deliver-email.processor.js';
import { deliveryLimiter } from './delivery-limiter.js';
import type { GroupDelivery } from './group-delivery.js';
import { deliverObserver } from './deliver-observer.js';
import { SoftFailError } from './job-result.js';
import { startBroadcastLaneYield } from './lane-yield.js';
import { smtpRetryBackoff } from './retry-backoff.js';
import type { LaneSenders } from './senders.js';

export interface SendLanes {
  workers: Worker<SendQueueJob>[];
  /** Stops the broadcast lane's yield, then closes the workers (in-flight sends finish). */
  close(): Promise<void>;
}

export function startSendLanes(
  config: WorkerConfig,
  deps: {
    ports: LaneIndependentDeliverDeps;
    senders: LaneSenders;
    schedule: number[];
    connection: QueueConnection;
    prefix: string;
    stages: readonly DeliverStage[] | undefined;
    /** The transactional lane's jobs waiting and running (SendQueues.busy('send')). */
    pressure: () => Promise<number>;
    /** The send queues: a group job hands an email that must wait over to a job of its own. */
    queues: Pick<SendQueues, 'enqueue' | 'hasOwnJob' | 'holdsLock'>;
  },
): SendLanes {
  // Every process consumes every shard. createSendWorkers splits a lane's jobs at once over its
  // queues (the broadcast lane's WORKER_BROADCAST_CONCURRENCY, the transactional lane's
  // sendLaneJobs, whose deliveries the lane's bound keeps at WORKER_CONCURRENCY), and
  // WORKER_SEND_RATE likewise, so it stays the lane's rate across processes.
  const byLane = SEND_LANES.map((lane) => {
    // Metrics name the lane's queues by their base name, whatever the shards.
    const queue = LANE_QUEUE[lane];
    zeroSeries(metrics.jobsProcessed(), { queue: [queue], result: ['completed', 'stalled'] });
    const smtp = deps.senders.byLane.get(lane)!;
    const backoff = smtpRetryBackoff(deps.schedule, config.RETRY_TIME_SCALE);
    // Only the transactional lane has group jobs (acceptance makes them; a broadcast's fan-out
    // writes one job per email, which its pacing and lane yield count). One bound for all its
    // deliveries in this process: a group job holds one BullMQ slot but runs its emails through
    // this limit, shared with the own jobs; a due retry takes its next free slot first.
    const group: GroupDelivery | undefined =
      lane === 'send'
        ? {
            limit: deliveryLimiter(config.WORKER_CONCURRENCY),
            handOver: (jobs) => deps.queues.enqueue(lane, jobs),
            hasOwnJob: (emailId) => deps.queues.hasOwnJob(lane, emailId),
            retryDelay: (attemptsMade, err) => backoff(attemptsMade, undefined, err),
            startAhead: config.WORKER_CONCURRENCY,
            // each email of a group starts only while this worker holds the group's lock: one
            // taken over by another worker (its lock expired while Redis was away) sends nothing
            // more here (group-lock.ts)
            holdsLock: (job, token) => deps.queues.holdsLock(job, token),
            lockDurationMs: config.WORKER_LOCK_DURATION_MS,
            handOverAll: Boolean(config.WORKER_SEND_RATE),
          }
        : undefined;
    return createSendWorkers(
      lane,
      deliverEmailProcessor({ ...deps.ports, smtp, observer: deliverObserver(lane) }, deps.stages, group),
      {
        connection: deps.connection,
        prefix: deps.prefix,
        shards: config.QUEUE_SHARDS,
        previousShards: config.QUEUE_SHARDS_PREVIOUS,
        concurrency: lane === 'broadcast' ? config.WORKER_BROADCAST_CONCURRENCY : sendLaneJobs(config),
        sendRate: config.WORKER_SEND_RATE,
        lockDuration: config.WORKER_LOCK_DURATION_MS,
        stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
        maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
        settings: { backoffStrategy: backoff },
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
  const workers = byLane.flat();
  // While transactional jobs wait, the broadcast lane runs fewer jobs at once (lane-yield.ts).
  const laneYield = startBroadcastLaneYield({
    rule: broadcastLaneYieldRule(config),
    workers: byLane[SEND_LANES.indexOf('broadcast')]!,
    fullConcurrency: config.WORKER_BROADCAST_CONCURRENCY,
    pressure: deps.pressure,
    intervalMs: config.WORKER_BROADCAST_YIELD_INTERVAL_MS,
  });
  log().info(
    {
      concurrency: config.WORKER_CONCURRENCY,
      broadcastConcurrency: config.WORKER_BROADCAST_CONCURRENCY,
      broadcastYield: config.WORKER_BROADCAST_YIELD,
      delivery: config.DELIVERY_MODE,
      // relay: connections per lane; direct: the ceiling per MX host
      pool: config.DELIVERY_MODE === 'relay' ? config.SMTP_POOL_SIZE : config.DIRECT_MAX_CONNECTIONS_PER_HOST,
      shards: config.QUEUE_SHARDS,
      ...(config.QUEUE_SHARDS_PREVIOUS !== undefined && { previousShards: config.QUEUE_SHARDS_PREVIOUS }),
      queues: workers.length,
    },
    'send workers started',
  );
  return {
    workers,
    async close() {
      await laneYield.stop();
      await Promise.all(workers.map((w) => w.close()));
    },
  };
}

/**
 * The transactional lane's BullMQ slots in a process: twice its delivery bound. Group jobs hold a
 * slot while their emails wait in the bound, so with as many slots as deliveries a process whose
 * slots are all held by groups fetches nothing else, and a due retry waits in Redis until a whole
 * group ends. The extra WORKER_CONCURRENCY let it (or any job) be fetched then, to take the
 * bound's next free slot; a fetched job that waits for one holds BullMQ's lock, which the worker
 * renews as for a running job. Deliveries stay at WORKER_CONCURRENCY (the bound counts them, not
 * jobs); what the extra slots cost is jobs held by this process before it can run them — at most
 * WORKER_CONCURRENCY more, which the stall check hands to another worker if this one dies.
 */
const sendLaneJobs = (config: Pick<WorkerConfig, 'WORKER_CONCURRENCY'>): number =>
  config.WORKER_CONCURRENCY * 2;
