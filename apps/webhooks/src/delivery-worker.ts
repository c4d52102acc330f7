/**
 * The queued side of the dispatcher: the BullMQ worker of the webhook delivery queue. A first
 * attempt is made straight from the stream (direct-deliveries.ts); a job carries every other one
 * — a retry, a replay, a delivery read again after a crash, a first attempt whose endpoint was at
 * its cap. Each job is one attempt of `deliverWebhook` (core); a retry moves the job back to
 * delayed for the wait the retry decision chose (DelayedError: BullMQ then leaves it alone). A job
 * whose endpoint is at its cap is parked the same way, without an attempt, until a slot of its
 * endpoint frees (parked-deliveries.ts).
 */
import type { Job } from 'bullmq';
import { webhookDeliveryJobSchema, type WebhookDeliveryJob } from '@petrel/contracts';
import {
  deliverWebhook,
  systemClock,
  type DeliveryPolicy,
  type DeliveryResult,
  type WebhookEventLogPort,
  type WebhookSender,
} from '@petrel/core';
import { DelayedError, createWebhookDeliveryWorker, parseJobData, type QueueConnection } from '@petrel/queue';
import { log } from '@petrel/observability';
import type { EndpointSlots } from './endpoint-slots.js';
import { observeDelivery, zeroDeliveryMetrics } from './delivery-metrics.js';
import { ParkedDeliveries } from './parked-deliveries.js';

export interface DeliveryWorkerDeps {
  log: WebhookEventLogPort;
  sender: WebhookSender;
  policy: DeliveryPolicy;
  /** The per-endpoint cap, shared with the first attempts made straight from the stream. */
  slots: EndpointSlots;
}

export interface DeliveryWorkerOptions {
  connection: QueueConnection;
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

export function startDeliveryWorker(deps: DeliveryWorkerDeps, opts: DeliveryWorkerOptions) {
  zeroDeliveryMetrics();
  const slots = deps.slots;
  // A parked job comes back by itself after the lock's duration, woken or not: the time BullMQ
  // takes to hand a dead dispatcher's running job to another, so a dispatcher's death delays its
  // parked deliveries no more than its running ones. A live dispatcher wakes them long before; one
  // left waiting that long is fetched and parked again (a round per lock duration, not per 75 ms).
  const parkMaxMs = opts.lockDurationMs;
  const parked = new ParkedDeliveries(slots, parkMaxMs);
  const ports = {
    log: deps.log,
    sender: deps.sender,
    clock: systemClock,
  };

  const processor = async (job: Job<WebhookDeliveryJob>, token?: string): Promise<void> => {
    const data = parseJobData(webhookDeliveryJobSchema, job);
    parked.arrived(data.endpointId, job.id);
    if (!slots.tryAcquire(data.endpointId)) {
      const since = Date.now();
      await job.moveToDelayed(since + parkMaxMs, token);
      parked.park(data.endpointId, job, since);
      throw new DelayedError();
    }
    let result: DeliveryResult;
    try {
      result = await deliverWebhook(data, ports, deps.policy);
    } finally {
      slots.release(data.endpointId);
    }
    observeDelivery(data, result);
    if (result.kind === 'attempted' && result.decision.event === 'retry') {
      await job.moveToDelayed(Date.now() + result.decision.delayMs, token);
      throw new DelayedError();
    }
  };

  const worker = createWebhookDeliveryWorker(processor, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency,
    lockDuration: opts.lockDurationMs,
    stalledInterval: opts.stalledIntervalMs,
  });
  worker.on('failed', (job, err) => {
    if (err instanceof DelayedError) return;
    log().error({ err, jobId: job?.id }, 'webhook delivery job failed');
  });
  worker.on('error', (err) => log().error({ err }, 'webhook delivery worker error'));
  return {
    /** Stops fetching, lets the jobs in hand finish, then hands the parked ones to the others. */
    async close(): Promise<void> {
      await worker.pause();
      await parked.wakeAll();
      await worker.close();
    },
  };
}
