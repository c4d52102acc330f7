import { Queue, Worker, type JobsOptions, type Processor } from 'bullmq';
import type { QueueConnection } from './send-queues.js';

/**
 * The options every job of a job queue gets: `attempts` failures (not stalls) in all, retried
 * with a delay from `firstDelayMs` doubling; gone once done, so nothing holds a fixed job id,
 * and a failed one kept a week (at most 10k) to be looked at.
 */
export function retriedJobOptions(attempts: number, firstDelayMs: number): JobsOptions {
  return {
    attempts,
    backoff: { type: 'exponential', delay: firstDelayMs },
    removeOnComplete: true,
    removeOnFail: { age: 7 * 24 * 3600, count: 10_000 },
  };
}

/**
 * The producing side of a job queue: a BullMQ queue on a shared connection (public for tests and
 * metrics) whose jobs all get `defaultJobOptions`. The connection's errors are logged once by its
 * owner (createRedis), so the queue's own `error` events (the same errors, re-emitted) are not
 * logged again.
 */
export class JobQueue<T> {
  readonly queue: Queue<T>;

  constructor(
    name: string,
    connection: QueueConnection,
    prefix: string | undefined,
    defaultJobOptions: JobsOptions,
  ) {
    this.queue = new Queue<T>(name, { connection, prefix, defaultJobOptions });
    this.queue.on('error', () => undefined);
  }

  async ready(): Promise<void> {
    await this.queue.waitUntilReady();
  }

  async close(): Promise<void> {
    await this.queue.close();
  }
}

/** What a job queue's worker takes from its process (concurrency, and the lock settings). */
export interface JobWorkerOptions {
  /** A blocking connection (BullMQ workers need `maxRetriesPerRequest: null`). */
  connection: QueueConnection;
  prefix?: string;
  /** Jobs one process runs at once. */
  concurrency: number;
  lockDuration?: number;
  stalledInterval?: number;
}

/** The worker of a job queue in one process; a job may lose its worker `maxStalledCount` times. */
export function jobWorker<T>(
  name: string,
  processor: Processor<T>,
  opts: JobWorkerOptions,
  maxStalledCount: number,
): Worker<T> {
  return new Worker<T>(name, processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    maxStalledCount,
    ...(opts.lockDuration !== undefined && { lockDuration: opts.lockDuration }),
    ...(opts.stalledInterval !== undefined && { stalledInterval: opts.stalledInterval }),
  });
}
