/**
 * The deliver-email observer of one send lane: SMTP latency and outcome metrics, and the log lines
 * of the outcomes an operator looks for. Runs inside the job's log context (team, job, email).
 */
import type { DeliverObserver, SendResult } from '@petrel/core';
import { allOf, log, metrics, zeroSeries } from '@petrel/observability';

export function deliverObserver(lane: string): DeliverObserver {
  // the lane's series from start-up, before its first send
  const kinds = allOf<SendResult['kind']>({ sent: true, soft_fail: true, hard_fail: true });
  zeroSeries(metrics.smtpLatency(), { kind: kinds });
  zeroSeries(metrics.sendOutcomes(), { kind: kinds, lane: [lane] });
  metrics.acceptToDelivered();
  zeroSeries(metrics.broadcastsPaused(), { reason: ['complaint_rate', 'hard_bounce_rate'] });
  zeroSeries(metrics.complaints(), { lane: [lane], source: ['simulated'] });
  return {
    onSmtpResult(result, seconds) {
      metrics.smtpLatency().observe({ kind: result.kind }, seconds);
      metrics.sendOutcomes().inc({ kind: result.kind, lane });
    },
    onOutcome(outcome, email) {
      if (outcome.kind === 'missing') {
        log().warn('email record not found (expired or deleted); nothing to send');
      } else if (outcome.kind === 'held') {
        log().debug('its broadcast is paused; the email is held');
      } else if (outcome.kind === 'skipped') {
        log().info({ status: outcome.status }, 'email is no longer sendable; skipping');
      } else if (outcome.kind === 'delivered' && email) {
        metrics.acceptToDelivered().observe((Date.now() - email.createdMs) / 1000);
      } else if (outcome.kind === 'bounced' && outcome.bounce === 'Temporary') {
        log().warn({ detail: outcome.detail }, 'retries exhausted; email bounced (transient)');
      }
    },
    onSideEffectError(what, err) {
      log().error({ err, what }, 'a write after the send failed; the email itself is recorded');
    },
    onComplaints(count, lane) {
      metrics.complaints().inc({ lane, source: 'simulated' }, count);
    },
    onBroadcastPaused({ broadcastId, breach, reason }) {
      metrics.broadcastsPaused().inc({ reason: breach.reason });
      log().warn(
        {
          broadcastId,
          reason: breach.reason,
          rate: breach.rate,
          threshold: breach.threshold,
          sent: breach.sent,
        },
        `broadcast paused: ${reason}; its emails not sent yet are held until it is resumed or canceled`,
      );
    },
  };
}
