/**
 * The metrics and the log line of every attempt, whichever path made it (a first attempt straight
 * from the stream, or a delivery job).
 */
import { WEBHOOK_EVENT_TYPES } from '@petrel/contracts';
import type { DeliveryResult, EndpointHealth, RetryDecision } from '@petrel/core';
import { allOf, log, metrics, zeroSeries } from '@petrel/observability';

/** The `result` label of an attempt: refused before sending, or the decision taken after it. */
type AttemptLabel = 'refused' | RetryDecision['event'];
type DisableReason = Extract<EndpointHealth, { kind: 'disable' }>['reason'];

/** The delivery series from start-up, before the first event (every type a webhook may take). */
export function zeroDeliveryMetrics(): void {
  const results = allOf<AttemptLabel>({ success: true, retry: true, failed: true, refused: true });
  zeroSeries(metrics.webhookDeliveries(), { result: results, event_type: WEBHOOK_EVENT_TYPES });
  zeroSeries(metrics.webhookAttemptLatency(), { result: results });
  metrics.webhookEventLag();
  zeroSeries(metrics.webhookEndpointsDisabled(), {
    reason: allOf<DisableReason>({ gone: true, failing: true }),
  });
}

export function observeDelivery(
  target: { teamId: string; endpointId: string },
  result: DeliveryResult,
): void {
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
        teamId: target.teamId,
        webhookId: target.endpointId,
        reason,
        failingSince: new Date(result.decision.endpoint.sinceMs).toISOString(),
      },
      reason === 'gone'
        ? 'webhook endpoint disabled: it answered 410 Gone'
        : 'webhook endpoint disabled: it has failed every attempt for longer than WEBHOOK_DISABLE_AFTER_S',
    );
  }
}
