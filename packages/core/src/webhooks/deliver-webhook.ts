/**
 * Delivery attempts of an event to an endpoint: the first one straight from the dispatch
 * (`deliverDispatched`), every later one from its delivery job (`deliverWebhook`). Each signs
 * the stored body with the endpoint's secret(s), POSTs it, records the attempt and decides what
 * comes next (retry-decision.ts). The message id is derived from the event id, so every
 * retry — including one after a dispatcher died mid-attempt — carries the same id; the
 * timestamp is fresh on each attempt (receivers refuse one older than 5 minutes).
 *
 * An endpoint deleted or disabled meanwhile gets no attempt (Resend: "disabled/removed
 * endpoints get no attempts"); its entry is marked failed.
 */
import { decideAfterAttempt, type AttemptOutcome, type RetryDecision } from './retry-decision.js';
import type { HealthWrite, WebhookDeliveryQueuePort, WebhookEventLogPort, WebhookSender } from './ports.js';
import type { ReadyDelivery } from './dispatch-events.js';
import type { WebhookEndpoint, WebhookEventEntry } from './types.js';
import { signatureHeaders, signingSecrets, webhookMessageId } from './signing.js';
import { newId } from '../kernel/ids.js';
import { guardAllows, WEBHOOK_ENDPOINT_MACHINE, WEBHOOK_EVENT_MACHINE } from '../transitions/index.js';
import type { Clock } from '../kernel/clock.js';

export const WEBHOOK_USER_AGENT = 'Petrel-Webhooks/1.0';

export interface DeliveryPolicy {
  /** Waits before attempts 1, 2, … (ms, scaled). */
  scheduleMs: readonly number[];
  disableAfterMs: number;
  /** Multiplier of a Retry-After the endpoint sends (the schedule's time scale; 1 in production). */
  retryAfterScale?: number;
}

export type DeliveryResult =
  | { kind: 'skipped'; reason: 'endpoint_gone' | 'endpoint_disabled' | 'event_gone' | 'finished' }
  | {
      kind: 'attempted';
      type: string;
      /** When the event happened (ISO), for the event-to-delivery latency. */
      eventCreatedAt: string;
      outcome: AttemptOutcome;
      latencyMs: number;
      attempt: number;
      decision: RetryDecision;
      /** True when this attempt disabled the endpoint (it was enabled until then). */
      disabled: boolean;
    };

export type AttemptedDelivery = Extract<DeliveryResult, { kind: 'attempted' }>;

/** What one attempt needs: the log to record it, the HTTP sender, the clock. */
export interface AttemptPorts {
  log: Pick<WebhookEventLogPort, 'recordAttempt'>;
  sender: WebhookSender;
  clock: Pick<Clock, 'now'>;
}

/**
 * A delivery job's attempt: reads the endpoint and the entry (and marks it attempting), then
 * attempts it unless the endpoint is gone or disabled or the entry finished.
 */
export async function deliverWebhook(
  cmd: { teamId: string; endpointId: string; eventId: string },
  ports: AttemptPorts & { log: Pick<WebhookEventLogPort, 'beginAttempt'> },
  policy: DeliveryPolicy,
): Promise<DeliveryResult> {
  const { teamId, endpointId, eventId } = cmd;
  const { endpoint, entry } = await ports.log.beginAttempt(teamId, endpointId, eventId);
  if (!endpoint || !guardAllows(WEBHOOK_ENDPOINT_MACHINE.guards.delivering, endpoint.status))
    return { kind: 'skipped', reason: endpoint ? 'endpoint_disabled' : 'endpoint_gone' };
  if (!entry) return { kind: 'skipped', reason: 'event_gone' };
  if (guardAllows(WEBHOOK_EVENT_MACHINE.guards.finished, entry.status))
    return { kind: 'skipped', reason: 'finished' };
  return attemptWebhook({ teamId, endpoint, entry }, ports, policy);
}

/**
 * The first attempt of a delivery the dispatch just wrote (`ReadyDelivery`), made straight from
 * the stream batch: the endpoint and the entry are in hand, so nothing is read back and no job
 * exists unless the attempt asks for a retry — then one delayed job (the job id of the delivery)
 * takes over, and every later attempt is `deliverWebhook`'s.
 */
export async function deliverDispatched(
  ready: ReadyDelivery,
  ports: AttemptPorts & { queue: WebhookDeliveryQueuePort },
  policy: DeliveryPolicy,
): Promise<AttemptedDelivery> {
  const result = await attemptWebhook(ready, ports, policy);
  if (result.decision.event === 'retry')
    await ports.queue.enqueue([
      {
        teamId: ready.teamId,
        endpointId: ready.endpoint.id,
        eventId: ready.entry.id,
        delayMs: result.decision.delayMs,
      },
    ]);
  return result;
}

/**
 * One attempt: sign the stored body with the endpoint's secret(s), POST it, decide what comes
 * next and record the attempt with that decision in one step.
 */
export async function attemptWebhook(
  target: { teamId: string; endpoint: WebhookEndpoint; entry: WebhookEventEntry },
  ports: AttemptPorts,
  policy: DeliveryPolicy,
): Promise<AttemptedDelivery> {
  const { teamId, endpoint, entry } = target;
  const sentAt = ports.clock.now();
  const msgId = webhookMessageId(entry.id);
  const headers = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    ...signatureHeaders(signingSecrets(endpoint, sentAt), msgId, Math.floor(sentAt / 1000), entry.payload),
  };
  const result = await ports.sender.send({ endpoint: endpoint.endpoint, headers, body: entry.payload });
  const now = ports.clock.now();
  const attempt = entry.run_attempts + 1;
  const scale = policy.retryAfterScale ?? 1;
  const decision = decideAfterAttempt({
    outcome:
      result.kind === 'response' && result.retryAfterMs !== undefined && scale !== 1
        ? { ...result, retryAfterMs: Math.round(result.retryAfterMs * scale) }
        : result,
    attempt,
    scheduleMs: policy.scheduleMs,
    failingSinceMs: endpoint.failing_since_ms,
    nowMs: now,
    disableAfterMs: policy.disableAfterMs,
  });
  const health: HealthWrite = decision.endpoint;
  const recorded = await ports.log.recordAttempt(teamId, endpoint.id, entry.id, {
    attempt: {
      id: newId(sentAt),
      http_status_code: result.kind === 'response' ? result.status : 0,
      response: result.responseBody,
      sent_at: new Date(sentAt).toISOString(),
      latency_ms: result.latencyMs,
    },
    status: decision.event === 'retry' ? 'pending' : decision.event,
    nextAttemptMs: decision.event === 'retry' ? now + decision.delayMs : null,
    health,
  });
  const { responseBody: _body, latencyMs, ...outcome } = result;
  return {
    kind: 'attempted',
    type: entry.type,
    eventCreatedAt: entry.created_at,
    outcome: outcome as AttemptOutcome,
    latencyMs,
    attempt,
    decision,
    disabled: recorded === 'disabled',
  };
}
