import { Queue, Worker, type JobsOptions, type Processor } from 'bullmq';
import type { QueueConnection } from './send-queues.js';

/**
 * A BullMQ queue on a shared connection, with the job options every job of it gets. The
 * connection's errors are logged once by its owner (createRedis), so the queue's own `error`
 * events (the same errors, re-emitted) are not logged again.
 */
export function jobQueue<T>(
  name: string,
  connection: QueueConnection,
  prefix: string | undefined,
  defaultJobOptions: JobsOptions,
): Queue<T> {
  const queue = new Queue<T>(name, { connection, prefix, defaultJobOptions });
  queue.on('error', () => undefined);
  return queue;
}

/** What a job queue's worker takes from its process (concurrency, and the lock settings). */
export interface JobWorkerOptions {
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
