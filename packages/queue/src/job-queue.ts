import { Queue, type JobsOptions } from 'bullmq';
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
