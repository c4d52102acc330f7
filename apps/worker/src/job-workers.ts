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
