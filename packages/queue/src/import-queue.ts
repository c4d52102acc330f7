/**
 * BullMQ adapter for contact imports: one queue (CONTACT_IMPORT_QUEUE, its own hash slot), one
 * job per import with the import id as job id, and the worker that runs them. An import's job
 * carries ids only; the file and options are in the import's record.
 *
 * An import is long (a million rows takes minutes) and checkpoints after every batch, so being
 * interrupted costs little: a stalled job (its worker killed) is simply run again from its
 * checkpoint, many times if need be (IMPORT_MAX_STALLED), and a job that fails (Redis
 * unreachable for a while) is retried with a growing delay.
 */
import type { Processor, Worker } from 'bullmq';
import { CONTACT_IMPORT_QUEUE, type ContactImportJob } from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { JobQueue, jobWorker, retriedJobOptions, type JobWorkerOptions } from './job-queue.js';

/** Attempts of an import job (failures, not stalls): 5, 10 s apart and doubling (~2.5 min in all). */
export const IMPORT_JOB_ATTEMPTS = 5;
/**
 * Times an import job may stall (lose its worker) before BullMQ fails it: a stall only costs
 * the rows since the last checkpoint, so rolling deploys and crashes must not fail imports.
 */
export const IMPORT_MAX_STALLED = 50;

export class ContactImportQueue extends JobQueue<ContactImportJob> {
  constructor(connection: QueueConnection, opts: { prefix?: string } = {}) {
    super(CONTACT_IMPORT_QUEUE, connection, opts.prefix, retriedJobOptions(IMPORT_JOB_ATTEMPTS, 10_000));
  }

  /** Queues the import's run; an import whose job exists keeps it (job id = import id). */
  async enqueue(teamId: string, importId: string): Promise<void> {
    await this.queue.add('import', { v: 1, teamId, importId }, { jobId: importId });
  }
}

/** The worker of the import queue in one process (CONTACT_IMPORT_CONCURRENCY imports at once). */
export function createContactImportWorker(
  processor: Processor<ContactImportJob>,
  opts: JobWorkerOptions,
): Worker<ContactImportJob> {
  return jobWorker(CONTACT_IMPORT_QUEUE, processor, opts, IMPORT_MAX_STALLED);
}

/** Thrown by a processor that has moved its own job back to delayed (BullMQ then leaves it alone). */
export { DelayedError } from 'bullmq';
