/**
 * BullMQ adapter for webhook deliveries: one queue (WEBHOOK_DELIVERY_QUEUE, its own hash slot),
 * one job per (event, endpoint) with the id `webhookDeliveryJobId`, and the worker the webhook
 * dispatchers run. Jobs carry ids only; the body is in the event log.
 *
 * The retry schedule is the dispatcher's (it moves its job back to delayed with the wait the
 * retry decision chose, and throws DelayedError), not BullMQ's attempts/backoff: the schedule,
 * Retry-After and the per-run count all live in the event log, where a replay resets them. A
 * job whose dispatcher died (kill -9) stalls and is run again — the same event, the same
 * message id — many times if need be (WEBHOOK_MAX_STALLED).
 */
import type { Processor, Worker } from 'bullmq';
import { WEBHOOK_DELIVERY_QUEUE, webhookDeliveryJobId, type WebhookDeliveryJob } from '@petrel/contracts';
import type { QueueConnection } from './send-queues.js';
import { JobQueue, jobWorker, retriedJobOptions, type JobWorkerOptions } from './job-queue.js';

/** Times a delivery may lose its dispatcher before BullMQ fails it. */
export const WEBHOOK_MAX_STALLED = 20;

/**
 * BullMQ's own attempts count only failures of the dispatcher itself (Redis unreachable while
 * recording): the delivery is then tried again later, not dropped. HTTP failures never fail the
 * job (see above).
 */
const WEBHOOK_JOB_ATTEMPTS = 10;

export class WebhookDeliveryQueue extends JobQueue<WebhookDeliveryJob> {
  constructor(connection: QueueConnection, opts: { prefix?: string } = {}) {
    super(WEBHOOK_DELIVERY_QUEUE, connection, opts.prefix, retriedJobOptions(WEBHOOK_JOB_ATTEMPTS, 5_000));
  }

  /**
   * Enqueues deliveries, each `delayMs` later when given (a retry's wait); one whose job exists
   * already keeps it (job ids are fixed).
   */
  async enqueue(
    jobs: readonly {
      teamId: string;
      endpointId: string;
      eventId: string;
      replay?: number;
      delayMs?: number;
    }[],
  ): Promise<void> {
    if (jobs.length === 0) return;
    await this.queue.addBulk(
      jobs.map((j) => ({
        name: 'deliver',
        data: { v: 1, teamId: j.teamId, endpointId: j.endpointId, eventId: j.eventId },
        opts: {
          jobId: webhookDeliveryJobId(j.eventId, j.endpointId, j.replay ?? 0),
          ...(j.delayMs ? { delay: j.delayMs } : {}),
        },
      })),
    );
  }

  /** Deliveries waiting or delayed (the dispatcher's backlog, for the queue-lag metric). */
  async backlog(): Promise<number> {
    const c = await this.queue.getJobCounts('waiting', 'delayed', 'prioritized');
    return Object.values(c).reduce((a, b) => a + b, 0);
  }
}

export function createWebhookDeliveryWorker(
  processor: Processor<WebhookDeliveryJob>,
  opts: JobWorkerOptions,
): Worker<WebhookDeliveryJob> {
  return jobWorker(WEBHOOK_DELIVERY_QUEUE, processor, opts, WEBHOOK_MAX_STALLED);
}
