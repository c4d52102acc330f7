/**
 * Acceptance stage: the team's daily sending quota (emails per UTC day). Each email that reaches
 * it takes one unit of the day's counter, or is refused with `daily_quota_exceeded` (429) once
 * the day's quota is used up; a team without a quota (its own or the default) passes untouched.
 *
 * It runs last, so an email another stage refuses never counts. An email of a strict batch that
 * is refused as a whole because of a sibling has taken its unit already: the count errs towards
 * the quota, never past it. An idempotent replay does not reach the stages, so it never counts.
 */
import { dailyQuotaMessage, utcDay, type DailyQuotaCounter } from '../../ratelimit/daily-quota.js';
import { refuse, type AcceptStage } from './stage.js';
import { systemClock, type Clock } from '../../kernel/clock.js';

export interface DailyQuotaOptions {
  counter: DailyQuotaCounter;
  /** DAILY_QUOTA: emails per UTC day of a team that set none (0: no quota). */
  defaultQuota: number;
  /** Wall time (default the system clock). */
  clock?: Pick<Clock, 'now'>;
  /** Observes each refusal (metrics). */
  onRefused?: () => void;
}

export function dailyQuota(opts: DailyQuotaOptions): AcceptStage {
  const clock = opts.clock ?? systemClock;
  return async (email, ctx) => {
    const at = clock.now();
    const answer = await opts.counter.take(ctx.teamId, utcDay(at), 1, opts.defaultQuota);
    if (!('admitted' in answer) || answer.admitted) return { email };
    opts.onRefused?.();
    return refuse(dailyQuotaMessage(answer.limit, at), 'daily_quota_exceeded');
  };
}
