/**
 * soft-bounces: after the outcome is recorded, the recipients' soft-bounce streaks
 * (soft-bounces.ts). A final soft bounce extends the address's streak, and a streak long enough
 * (SOFT_BOUNCE_SUPPRESS_EMAILS emails over SOFT_BOUNCE_SUPPRESS_DAYS days) puts the address on the
 * team's suppression list with origin `bounce`; a delivery ends the streak (written with the
 * delivery's events by record-and-publish, so a delivered email costs this stage nothing). Like
 * the hard-bounce suppression before it, none of this may fail the job: the outcome stands (a
 * retry would find the email terminal, or send it again), so a failed write is reported and
 * dropped.
 */
import { softBounceFacts, softBounceStreakTtlMs, softBounceSuppresses } from '../soft-bounces.js';
import type { DeliverStage } from '../stage.js';

export const softBounces: DeliverStage<'outcome' | 'result' | 'recipients'> = {
  name: 'soft-bounces',
  needs: ['outcome', 'result', 'recipients'],
  async run(ctx, deps) {
    const rule = deps.softBounces;
    if (!rule || rule.settings.emails <= 0) return undefined;
    // a delivery's streaks ended with its recorded events (record-and-publish): only the final
    // soft bounces are left to count here
    const { softBounced } = softBounceFacts(ctx.outcome, ctx.result, ctx.recipients);
    if (softBounced.length === 0) return undefined;
    const { teamId } = ctx.job;
    const nowMs = deps.clock.now();
    const ttlMs = softBounceStreakTtlMs(rule.settings);
    const ended: string[] = [];
    for (const address of softBounced) {
      try {
        const streak = await rule.streaks.record(teamId, address, ctx.email.id, nowMs, ttlMs);
        if (!softBounceSuppresses(streak, rule.settings, nowMs)) continue;
        await deps.suppressions.add(teamId, address, 'bounce', ctx.email.id);
        // removed from the list later, the address starts a new streak
        ended.push(address);
      } catch (err) {
        deps.observer.onSideEffectError(`soft-bounce streak of ${address}`, err);
      }
    }
    if (ended.length === 0) return undefined;
    try {
      await rule.streaks.reset(teamId, ended);
    } catch (err) {
      deps.observer.onSideEffectError('end soft-bounce streaks', err);
    }
    return undefined;
  },
};
