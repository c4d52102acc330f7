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
import type { Processor, Worker } from 'bullmq';
import { BROADCAST_FANOUT_QUEUE, broadcastFanoutJobId, type BroadcastFanoutJob } from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { JobQueue, jobWorker, retriedJobOptions, type JobWorkerOptions } from './job-queue.js';

/**
 * Attempts of a fan-out job (failures, not stalls): 8, 5 s apart and doubling (~10 min in all).
 * The job is gone once done, so nothing holds the id (a broadcast is scheduled at most once anyway).
 */
export const FANOUT_JOB_ATTEMPTS = 8;
/** Times a fan-out may stall (lose its scheduler) before BullMQ fails it: a stall costs one page. */
export const FANOUT_MAX_STALLED = 50;

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
export class BroadcastFanoutQueue extends JobQueue<BroadcastFanoutJob> {
  private readonly clock: { now(): number };

  constructor(connection: QueueConnection, opts: FanoutQueueOptions = {}) {
    super(BROADCAST_FANOUT_QUEUE, connection, opts.prefix, retriedJobOptions(FANOUT_JOB_ATTEMPTS, 5_000));
    this.clock = opts.clock ?? Date;
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
}

/** The worker of the fan-out queue in one scheduler process. */
export function createBroadcastFanoutWorker(
  processor: Processor<BroadcastFanoutJob>,
  opts: JobWorkerOptions,
): Worker<BroadcastFanoutJob> {
  return jobWorker(BROADCAST_FANOUT_QUEUE, processor, opts, FANOUT_MAX_STALLED);
}
