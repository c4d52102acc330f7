/**
 * The optional daily sending quota of a team: emails accepted per UTC calendar day (Resend's
 * `daily_quota_exceeded`: the day resets at 00:00 UTC). Counted at acceptance, one unit per
 * email, by an acceptance stage (accept/stages/daily-quota.ts); the store keeps one counter per
 * team and day.
 */

/** The UTC calendar day of `ms`, `YYYY-MM-DD`: the counter's name. */
export function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Seconds from `ms` to the next 00:00 UTC, when the quota is whole again. */
export function secondsToUtcMidnight(ms: number): number {
  const day = 86_400_000;
  return Math.ceil((day - (ms % day)) / 1000);
}

export type DailyQuotaAnswer =
  /** No quota applies to the team. */
  | { limit: 0 }
  /** `used` after this call (admitted) or as it stands (refused). */
  | { limit: number; used: number; admitted: boolean };

/**
 * The store's atomic step: take `count` emails of `teamId`'s quota for `day` — the team's own,
 * else `defaultQuota` (0: none) — all or none.
 */
export interface DailyQuotaCounter {
  take(teamId: string, day: string, count: number, defaultQuota: number): Promise<DailyQuotaAnswer>;
}

/** The message of an email refused by the quota. */
export function dailyQuotaMessage(limit: number, nowMs: number): string {
  return `Daily sending quota reached: this team may send ${limit} emails per day (UTC); it resets in ${secondsToUtcMidnight(nowMs)} s.`;
}
