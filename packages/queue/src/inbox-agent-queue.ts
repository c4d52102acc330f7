/**
 * BullMQ adapter of the inbox agent: one queue (INBOX_AGENT_QUEUE, its own hash slot), one job
 * per (inbox, inbound message) with a fixed id, so a message filed twice (the sender retried
 * after a 451) is one run; and the worker that runs them.
 *
 * A model call fails in ways worth retrying (a timeout, 429, 5xx, the network): the job fails
 * and BullMQ tries it again with a growing delay, INBOX_AGENT_JOB_ATTEMPTS times in all; the
 * processor fails it for good (UnrecoverableError) when retrying cannot help. A job whose worker
 * died stalls and runs again; the run skips a message it has recorded already.
 */
import type { Processor, Worker } from 'bullmq';
import { INBOX_AGENT_QUEUE, inboxAgentJobId, type InboxAgentJob } from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { JobQueue, jobWorker, retriedJobOptions, type JobWorkerOptions } from './job-queue.js';

/** Attempts of one run: 5, from 5 s doubling (5 s, 10 s, 20 s, 40 s: about a minute and a half in all). */
export const INBOX_AGENT_JOB_ATTEMPTS = 5;
/** Times a run may lose its worker before BullMQ fails it. */
export const INBOX_AGENT_MAX_STALLED = 5;

/** Implements core's AgentRunQueue port (structurally). */
export class InboxAgentQueue extends JobQueue<InboxAgentJob> {
  constructor(connection: QueueConnection, opts: { prefix?: string } = {}) {
    super(INBOX_AGENT_QUEUE, connection, opts.prefix, retriedJobOptions(INBOX_AGENT_JOB_ATTEMPTS, 5_000));
  }

  async enqueue(job: { teamId: string; inboxId: string; threadId: string; emailId: string }): Promise<void> {
    await this.queue.add('run', { v: 1, ...job }, { jobId: inboxAgentJobId(job.inboxId, job.emailId) });
  }
}

/** The agent queue's worker (INBOX_AGENT_CONCURRENCY runs at once per process). */
export function createInboxAgentWorker(
  processor: Processor<InboxAgentJob>,
  opts: JobWorkerOptions,
): Worker<InboxAgentJob> {
  return jobWorker(INBOX_AGENT_QUEUE, processor, opts, INBOX_AGENT_MAX_STALLED);
}
