import { log } from '@petrel/observability';
import type { Worker } from '@petrel/queue';
import type { Runtime } from '@petrel/runtime';
import type { WorkerConfig } from './config.js';

/**
 * The options of a job worker of this process (contact imports, automation steps, agent runs):
 * the process's BullMQ connection and the lock and stall checks of WORKER_LOCK_DURATION_MS and
 * WORKER_STALLED_INTERVAL_MS, at `concurrency` jobs at once.
 */
export const jobWorkerOptions = (config: WorkerConfig, rt: Runtime, concurrency: number) => ({
  connection: rt.connection('bull'),
  prefix: rt.keys.bullPrefix(),
  concurrency,
  lockDuration: config.WORKER_LOCK_DURATION_MS,
  stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
});

/** `worker`'s errors and failed jobs in the log, as `<what> worker error` and `<what> job failed`. */
export function logJobWorker<T>(worker: Worker<T>, what: string): Worker<T> {
  worker.on('error', (err) => log().error({ err }, `${what} worker error`));
  worker.on('failed', (job, err) => log().warn({ jobId: job?.id, err: err.message }, `${what} job failed`));
  return worker;
}
