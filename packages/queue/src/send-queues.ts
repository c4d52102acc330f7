/**
 * BullMQ adapter for the send lanes: typed queue and worker factories, default job options, and
 * the enqueuer that adds jobs onto a caller's Redis transaction so that email records, jobs and
 * the idempotency record commit together (`addSendJobsIn`).
 */
import { Job, Queue, Worker, type JobsOptions, type Processor, type WorkerOptions } from 'bullmq';
import type { ChainableCommander, Redis } from 'ioredis';
import { QUEUES, type SendJob } from '@petrel/contracts';

export type SendLane = 'send' | 'broadcast';

export const LANE_QUEUE: Record<SendLane, string> = {
  send: QUEUES.send,
  broadcast: QUEUES.sendBroadcast,
};

/** Name of the custom backoff strategy the send workers implement. */
export const SMTP_BACKOFF = 'smtp-retry';

export interface SendQueueOptions {
  /** BullMQ key prefix (default `bull`); tests use their own to stay apart. */
  prefix?: string;
}

/**
 * A safety cap only: the worker decides when retries are spent (its retry ladder), so the API
 * that enqueues never needs to know the ladder.
 */
export const MAX_SEND_ATTEMPTS = 1000;

export function sendJobOptions(): JobsOptions {
  return {
    attempts: MAX_SEND_ATTEMPTS,
    backoff: { type: SMTP_BACKOFF },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
  };
}

export class SendQueues {
  readonly queues: Record<SendLane, Queue<SendJob>>;
  private readonly jobOptions: JobsOptions;

  constructor(
    private readonly connection: Redis,
    private readonly opts: SendQueueOptions,
  ) {
    this.jobOptions = sendJobOptions();
    const mk = (lane: SendLane) =>
      new Queue<SendJob>(LANE_QUEUE[lane], {
        connection,
        prefix: opts.prefix,
        defaultJobOptions: this.jobOptions,
      });
    this.queues = { send: mk('send'), broadcast: mk('broadcast') };
  }

  /** Resolves once both queues' connections are ready and BullMQ's scripts are loaded. */
  async ready(): Promise<void> {
    await Promise.all([this.queues.send.waitUntilReady(), this.queues.broadcast.waitUntilReady()]);
  }

  /**
   * A Redis transaction on the queues' connection that BullMQ can add jobs to. Other writes (the
   * email records, the idempotency completion) go on the same transaction.
   */
  async multi(): Promise<ChainableCommander> {
    const client = await (this.queues.send as unknown as { backend: { client: Promise<unknown> } }).backend
      .client;
    return (client as unknown as { multi(): ChainableCommander }).multi();
  }

  /**
   * Queue one job per email on `multi` (from `multi()`; jobId = emailId, so a retried acceptance
   * never makes a second job). The jobs exist once `multi` is executed.
   */
  addSendJobsIn(
    multi: ChainableCommander,
    lane: SendLane,
    jobs: { teamId: string; emailId: string; delayMs?: number }[],
  ): void {
    const queue = this.queues[lane];
    for (const j of jobs) {
      const job = new Job<SendJob>(
        queue,
        'send',
        { v: 1, teamId: j.teamId, emailId: j.emailId },
        { ...this.jobOptions, jobId: j.emailId, ...(j.delayMs ? { delay: j.delayMs } : {}) },
        j.emailId,
      );
      // Queued synchronously on the transaction; the result arrives with multi.exec().
      void job.addJob(multi as never);
    }
  }

  /** Remove a waiting or delayed job (cancel of a scheduled email). */
  async remove(lane: SendLane, emailId: string): Promise<boolean> {
    const removed = await this.queues[lane].remove(emailId);
    return removed === 1;
  }

  /** Move a delayed job to a new time (reschedule). */
  async reschedule(lane: SendLane, emailId: string, delayMs: number): Promise<boolean> {
    const job = await Job.fromId<SendJob>(this.queues[lane], emailId);
    if (!job) return false;
    await job.changeDelay(Math.max(0, delayMs));
    return true;
  }

  async counts(): Promise<Record<SendLane, Record<string, number>>> {
    const states = ['waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized'] as const;
    const [send, broadcast] = await Promise.all([
      this.queues.send.getJobCounts(...states),
      this.queues.broadcast.getJobCounts(...states),
    ]);
    return { send, broadcast };
  }

  async close(): Promise<void> {
    await Promise.all([this.queues.send.close(), this.queues.broadcast.close()]);
  }
}

/** A send worker for one lane. */
export function createSendWorker(
  lane: SendLane,
  processor: Processor<SendJob>,
  opts: Omit<WorkerOptions, 'connection'> & { connection: Redis },
): Worker<SendJob> {
  return new Worker<SendJob>(LANE_QUEUE[lane], processor, opts);
}

export { Job, Queue, Worker, UnrecoverableError, DelayedError } from 'bullmq';
export type { Processor, WorkerOptions, JobsOptions } from 'bullmq';
