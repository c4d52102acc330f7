/**
 * The delivery side of the dispatcher: the BullMQ worker of the webhook delivery queue. Each job
 * is one attempt of `deliverWebhook` (core); a retry moves the job back to delayed for the wait
 * the retry decision chose (DelayedError: BullMQ then leaves it alone). Metrics and the log line
 * of a disabled endpoint are written here.
 */
import type { Job } from 'bullmq';
import { WEBHOOK_EVENT_TYPES, webhookDeliveryJobSchema, type WebhookDeliveryJob } from '@petrel/contracts';
import {
  deliverWebhook,
  type DeliveryPolicy,
  type DeliveryResult,
  type EndpointHealth,
  type RetryDecision,
  type WebhookEventLogPort,
  type WebhookSender,
} from '@petrel/core';
import { DelayedError, createWebhookDeliveryWorker, parseJobData, type QueueConnection } from '@petrel/queue';
import { allOf, log, metrics, zeroSeries } from '@petrel/observability';
import { EndpointSlots } from './endpoint-slots.js';

/** How long a delivery waits when its endpoint is at its cap (plus jitter). */
const BUSY_RETRY_MS = 50;

export interface DeliveryWorkerDeps {
  log: WebhookEventLogPort;
  sender: WebhookSender;
  policy: DeliveryPolicy;
  endpointConcurrency: number;
}

export interface DeliveryWorkerOptions {
  connection: QueueConnection;
  prefix: string;
  concurrency: number;
  lockDurationMs: number;
  stalledIntervalMs: number;
}

/** The `result` label of an attempt: refused before sending, or the decision taken after it. */
type AttemptLabel = 'refused' | RetryDecision['event'];
type DisableReason = Extract<EndpointHealth, { kind: 'disable' }>['reason'];

/** The delivery series from start-up, before the first event (every type a webhook may take). */
function zeroDeliveryMetrics(): void {
  const results = allOf<AttemptLabel>({ success: true, retry: true, failed: true, refused: true });
  zeroSeries(metrics.webhookDeliveries(), { result: results, event_type: WEBHOOK_EVENT_TYPES });
  zeroSeries(metrics.webhookAttemptLatency(), { result: results });
  metrics.webhookEventLag();
  zeroSeries(metrics.webhookEndpointsDisabled(), {
    reason: allOf<DisableReason>({ gone: true, failing: true }),
  });
}

function observe(job: WebhookDeliveryJob, result: DeliveryResult): void {
  if (result.kind !== 'attempted') return;
  const label: AttemptLabel =
    result.outcome.kind === 'refused'
      ? 'refused'
      : result.decision.event === 'retry'
        ? 'retry'
        : result.decision.event;
  metrics.webhookDeliveries().inc({ result: label, event_type: result.type });
  metrics.webhookAttemptLatency().observe({ result: label }, result.latencyMs / 1000);
  if (result.attempt === 1) {
    const lag = (Date.now() - Date.parse(result.eventCreatedAt)) / 1000;
    if (Number.isFinite(lag) && lag >= 0) metrics.webhookEventLag().observe(lag);
  }
  if (result.disabled && result.decision.endpoint.kind === 'disable') {
    const reason = result.decision.endpoint.reason;
    metrics.webhookEndpointsDisabled().inc({ reason });
    log().warn(
      {
        teamId: job.teamId,
        webhookId: job.endpointId,
        reason,
        failingSince: new Date(result.decision.endpoint.sinceMs).toISOString(),
      },
      reason === 'gone'
        ? 'webhook endpoint disabled: it answered 410 Gone'
        : 'webhook endpoint disabled: it has failed every attempt for longer than WEBHOOK_DISABLE_AFTER_S',
    );
  }
}

export function startDeliveryWorker(deps: DeliveryWorkerDeps, opts: DeliveryWorkerOptions) {
  zeroDeliveryMetrics();
  const slots = new EndpointSlots(deps.endpointConcurrency);
  const ports = {
    log: deps.log,
    sender: deps.sender,
    clock: { now: () => Date.now() },
  };

  const processor = async (job: Job<WebhookDeliveryJob>, token?: string): Promise<void> => {
    const data = parseJobData(webhookDeliveryJobSchema, job);
    if (!slots.tryAcquire(data.endpointId)) {
      await job.moveToDelayed(Date.now() + BUSY_RETRY_MS + Math.floor(Math.random() * BUSY_RETRY_MS), token);
      throw new DelayedError();
    }
    let result: DeliveryResult;
    try {
      result = await deliverWebhook(data, ports, deps.policy);
    } finally {
      slots.release(data.endpointId);
    }
    observe(data, result);
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
  return worker;
}
