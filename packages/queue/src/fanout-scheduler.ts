/**
 * BullMQ adapter for broadcast fan-outs: one queue (BROADCAST_FANOUT_QUEUE, its own hash slot),
 * one job per broadcast, delayed until it is due, with the id `broadcastFanoutJobId` — fixed, so
 * scheduling twice is one job and DELETE / cancel find it to remove it. The job carries ids only;
 * the broadcast record holds the rest, and its compare-and-set status decides whether a fan-out
 * runs at all (a job that outlived its broadcast finds nothing to do).
 *
 * A fan-out checkpoints after every page, so an interruption costs one page: a stalled job (its
 * scheduler killed) is run again from its checkpoint, as often as it takes (FANOUT_MAX_STALLED),
 * and a failed one (Redis unreachable for a while) is retried with a growing delay.
 */
import { Queue, Worker, type JobsOptions, type Processor } from 'bullmq';
import { BROADCAST_FANOUT_QUEUE, broadcastFanoutJobId, type BroadcastFanoutJob } from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { jobQueue } from './job-queue.js';

/** Attempts of a fan-out job (failures, not stalls): 8, 5 s apart and doubling (~10 min in all). */
export const FANOUT_JOB_ATTEMPTS = 8;
const FANOUT_BACKOFF = { type: 'exponential', delay: 5_000 } as const;
/** Times a fan-out may stall (lose its scheduler) before BullMQ fails it: a stall costs one page. */
export const FANOUT_MAX_STALLED = 50;

function fanoutJobOptions(): JobsOptions {
  return {
    attempts: FANOUT_JOB_ATTEMPTS,
    backoff: FANOUT_BACKOFF,
    // gone once done, so nothing holds the id (a broadcast is scheduled at most once anyway)
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

export interface FanoutQueueOptions {
  /** BullMQ key prefix: `keys.bullPrefix()`. */
  prefix?: string;
  /** The clock the delays are computed against (tests). */
  clock?: { now(): number };
}

/**
 * The scheduling side (API): core's FanoutScheduler port over the fan-out queue (matched by
 * shape: this package does not import core).
 */
export class BroadcastFanoutQueue {
  readonly queue: Queue<BroadcastFanoutJob>;
  private readonly clock: { now(): number };

  constructor(connection: QueueConnection, opts: FanoutQueueOptions = {}) {
    this.queue = jobQueue<BroadcastFanoutJob>(
      BROADCAST_FANOUT_QUEUE,
      connection,
      opts.prefix,
      fanoutJobOptions(),
    );
    this.clock = opts.clock ?? Date;
  }

  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
  }

  /** The job runs at `dueMs` (at once when that is past); a broadcast's job that exists is kept. */
  async schedule(teamId: string, broadcastId: string, dueMs: number): Promise<void> {
    await this.queue.add(
      'fanout',
      { v: 1, teamId, broadcastId },
      { jobId: broadcastFanoutJobId(teamId, broadcastId), delay: Math.max(0, dueMs - this.clock.now()) },
    );
  }

  /**
   * Removes a waiting or delayed job. Harmless when there is none, and when it is running
   * (BullMQ keeps a locked job): a fan-out that started owns the broadcast, and the record's
   * status tells it whether to go on.
   */
  async unschedule(teamId: string, broadcastId: string): Promise<void> {
    await this.queue.remove(broadcastFanoutJobId(teamId, broadcastId));
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

export interface FanoutWorkerOptions {
  /** A blocking connection (BullMQ workers need `maxRetriesPerRequest: null`). */
  connection: QueueConnection;
  prefix?: string;
  /** Fan-outs one process runs at once. */
  concurrency: number;
  lockDuration?: number;
  stalledInterval?: number;
}

/** The worker of the fan-out queue in one scheduler process. */
export function createBroadcastFanoutWorker(
  processor: Processor<BroadcastFanoutJob>,
  opts: FanoutWorkerOptions,
): Worker<BroadcastFanoutJob> {
  return new Worker<BroadcastFanoutJob>(BROADCAST_FANOUT_QUEUE, processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    maxStalledCount: FANOUT_MAX_STALLED,
    ...(opts.lockDuration !== undefined && { lockDuration: opts.lockDuration }),
    ...(opts.stalledInterval !== undefined && { stalledInterval: opts.stalledInterval }),
  });
}
