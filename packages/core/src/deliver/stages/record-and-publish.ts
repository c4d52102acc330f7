/**
 * record-and-publish: what the SMTP server said, written to the record (events on the timeline,
 * published for webhooks, the status moved forward, the attempt counted), the recipients refused
 * or left out included. Through the `outcomes` port: once the server has answered, this write is
 * what stands between a Redis blip and a duplicate send.
 *
 * Then the addresses a permanent failure proved bad join the team's suppression list (origin
 * `bounce`), so the next email to them is not sent. That write comes after the record and may
 * not fail the job: a retry would find the email terminal and do nothing, or worse send again.
 * So does the broadcast protection check after a broadcast email's hard bounce or complaint
 * (its counters were written with the events, by the same script).
 */
import { bounceSuppresses } from '../../audience/bounce-suppression.js';
import {
  checkBroadcastProtection,
  DEFAULT_BROADCAST_PROTECTION,
  raisesProtectionRate,
  thresholdsInForce,
} from '../../broadcasts/protection.js';
import { decideAttempt } from '../attempt-decision.js';
import { softBounceStreaksEnded } from '../soft-bounces.js';
import { emailEvent } from '../../emails/email-event.js';
import type { SendResult } from '../ports.js';
import type { DeliverStage } from '../stage.js';

export const recordAndPublish: DeliverStage<'result' | 'recipients'> = {
  name: 'record-and-publish',
  needs: ['result', 'recipients'],
  async run(ctx, deps) {
    const { job, email } = ctx;
    const decision = decideAttempt({
      result: ctx.result,
      recipients: ctx.recipients,
      attemptsMade: job.attemptsMade,
      retries: deps.retries,
      status: email.status,
      dropped: ctx.dropped ?? [],
    });
    // a deferral (no server asked: a warm-up cap) is not an attempt
    const deferred = decision.outcome.kind === 'delayed' && decision.outcome.deferred === true;
    const fields: Record<string, string> = deferred ? {} : { attempts: String(email.attempts + 1) };
    // a simulated complained@ that got the message complains, as an ARF report would record it
    const complainers =
      decision.outcome.kind === 'delivered'
        ? (ctx.simulated ?? []).filter((s) => s.complaint && s.result.kind === 'sent').map((s) => s.address)
        : [];
    const complaint = { feedbackType: 'abuse', arrivalDate: new Date(deps.clock.now()).toISOString() };
    const events = [
      ...decision.events,
      ...complainers.map(() => ({
        type: 'email.complained' as const,
        status: 'complained' as const,
        data: { complaint },
      })),
    ];
    if (events.length === 0) {
      if (Object.keys(fields).length > 0) await deps.outcomes.setFields(job.teamId, email.id, fields);
    } else {
      const items = events.map((e) => ({
        status: e.status,
        event: emailEvent(e.type, job.teamId, email, e.data, deps),
      }));
      // a delivery ends its recipients' soft-bounce streaks in this same write (one round trip)
      const ended = softBounceStreaksEnded(
        deps.softBounces?.settings,
        decision.outcome,
        ctx.result,
        ctx.recipients,
      );
      const also = ended.length > 0 ? { endSoftBounceStreaks: ended } : undefined;
      await deps.outcomes.recordEvents(job.teamId, email.id, items, fields, also);
    }
    for (const address of hardBounced(ctx.result, ctx.recipients)) {
      try {
        await deps.suppressions.add(job.teamId, address, 'bounce', email.id);
      } catch (err) {
        deps.observer.onSideEffectError(`suppress ${address}`, err);
      }
    }
    if (complainers.length > 0) {
      deps.observer.onComplaints?.(complainers.length, email.broadcastId === null ? 'send' : 'broadcast');
    }
    for (const address of complainers) {
      try {
        await deps.suppressions.add(job.teamId, address, 'complaint', email.id);
      } catch (err) {
        deps.observer.onSideEffectError(`suppress ${address}`, err);
      }
    }
    if (email.broadcastId !== null && raisesProtectionRate(events)) {
      const { thresholds: deployment, teams } = deps.protection ?? DEFAULT_BROADCAST_PROTECTION;
      try {
        // the team's own thresholds over the deployment's, read only now (a rare event)
        const thresholds = teams
          ? thresholdsInForce(await teams.protectionThresholds(job.teamId), deployment)
          : deployment;
        const paused = await checkBroadcastProtection(
          deps.broadcasts,
          job.teamId,
          email.broadcastId,
          thresholds,
        );
        if (paused) deps.observer.onBroadcastPaused(paused);
      } catch (err) {
        deps.observer.onSideEffectError(`broadcast protection ${email.broadcastId}`, err);
      }
    }
    // the stages after this one act on the recorded outcome; the pipeline ends with it
    ctx.outcome = decision.outcome;
    return undefined;
  },
};

/** The addresses the result proved bad: every recipient of a refused message, or those refused one by one. */
function hardBounced(result: SendResult, recipients: readonly string[]): string[] {
  if (result.kind === 'hard_fail') {
    return bounceSuppresses(result.code, result.enhancedCode) ? [...recipients] : [];
  }
  if (result.kind !== 'sent') return [];
  return (result.rejected ?? [])
    .filter((r) => r.permanent && bounceSuppresses(r.code, r.enhancedCode))
    .map((r) => r.address);
}
