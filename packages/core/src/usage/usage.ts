/**
 * `GET /usage` (Resend's `usage.get`): a team's counts against its limits. The counts are counters
 * kept as things are written (emails accepted and received per UTC day and month, automation runs
 * per month, the sizes of the team's listings), never a scan. A limit is the one Petrel enforces
 * (the daily sending quota and the request rate: the team's own value set with the CLI, else the
 * deployment's default), `null` where nothing is enforced.
 */
import type { Clock } from '../kernel/clock.js';
import { utcDay } from '../ratelimit/daily-quota.js';

/** The periods the usage counters are kept for: a UTC day (`YYYY-MM-DD`) and month (`YYYY-MM`). */
export function usagePeriods(nowMs: number): { day: string; month: string } {
  const day = utcDay(nowMs);
  return { day, month: day.slice(0, 7) };
}

/** 00:00 UTC of the next day and of the first day of the next month, ISO 8601. */
export function usageResets(nowMs: number): { day: string; month: string } {
  const d = new Date(nowMs);
  return {
    day: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString(),
    month: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)).toISOString(),
  };
}

/**
 * The limit in force: the team's own value when it set one, else the deployment's default; 0
 * switches it off. The same rule as the store's scripts that enforce it (`petrelTakeDailyQuota`,
 * `petrelTakeRateLimit`). Returns null when none applies.
 */
export function limitInForce(own: number | null, deploymentDefault: number): number | null {
  const v = own ?? deploymentDefault;
  return v > 0 ? v : null;
}

export interface UsageCounts {
  emailsSentToday: number;
  emailsReceivedToday: number;
  emailsSentMonth: number;
  emailsReceivedMonth: number;
  /** The day's counter of the daily quota (what the quota is enforced against). */
  quotaUsedToday: number;
  contacts: number;
  segments: number;
  broadcasts: number;
  domains: number;
  automationRunsMonth: number;
}

export interface UsageLimits {
  /** Emails per UTC day (the daily quota), null: none. */
  dailyEmails: number | null;
  /** Requests per second, null: none. */
  requestsPerSecond: number | null;
}

/** The SDK's `GetUsageResponseSuccess`, with `null` for every limit Petrel does not enforce. */
export interface UsageReport {
  object: 'usage';
  emails: {
    daily: { used: number; limit: number | null; sent: number; received: number; resets_at: string };
    monthly: { used: number; limit: number | null; sent: number; received: number; resets_at: string };
  };
  contacts: { used: number; limit: number | null };
  segments: { used: number; limit: number | null };
  broadcasts: { used: number; limit: null };
  ai_credits: { used: number; limit: number | null; next_increase_at: string | null };
  automation_runs: { used: number; limit: number | null; resets_at: string };
  domains: { used: number; limit: number | null };
  rate_limit: { limit: number | null; duration: string };
}

/**
 * The report. `emails.daily.used` is what the daily quota counts: with a quota, exactly the
 * counter acceptance takes units of (so `used` reaching `limit` is when the next email gets 429
 * `daily_quota_exceeded`); without one, the emails accepted today. Received emails count in
 * `received` only (no quota applies to them).
 */
export function usageReport(counts: UsageCounts, limits: UsageLimits, nowMs: number): UsageReport {
  const resets = usageResets(nowMs);
  return {
    object: 'usage',
    emails: {
      daily: {
        used: limits.dailyEmails === null ? counts.emailsSentToday : counts.quotaUsedToday,
        limit: limits.dailyEmails,
        sent: counts.emailsSentToday,
        received: counts.emailsReceivedToday,
        resets_at: resets.day,
      },
      monthly: {
        used: counts.emailsSentMonth,
        limit: null,
        sent: counts.emailsSentMonth,
        received: counts.emailsReceivedMonth,
        resets_at: resets.month,
      },
    },
    contacts: { used: counts.contacts, limit: null },
    segments: { used: counts.segments, limit: null },
    broadcasts: { used: counts.broadcasts, limit: null },
    ai_credits: { used: 0, limit: null, next_increase_at: null },
    automation_runs: { used: counts.automationRunsMonth, limit: null, resets_at: resets.month },
    domains: { used: counts.domains, limit: null },
    rate_limit: { limit: limits.requestsPerSecond, duration: '1s' },
  };
}

/** The store's side of the report: the team's counters for `nowMs`'s day and month. */
export interface UsageReader {
  counts(teamId: string, nowMs: number): Promise<UsageCounts>;
  /** The team's own limits (null: the deployment's default applies). */
  ownLimits(teamId: string): Promise<{ rps: number | null; dailyQuota: number | null }>;
}

export interface UsageDeps {
  reader: UsageReader;
  /** RATE_LIMIT_RPS and DAILY_QUOTA: the deployment's defaults. */
  defaults: { rps: number; dailyQuota: number };
  clock: Pick<Clock, 'now'>;
}

export async function getUsage(deps: UsageDeps, teamId: string): Promise<UsageReport> {
  const nowMs = deps.clock.now();
  const [counts, own] = await Promise.all([deps.reader.counts(teamId, nowMs), deps.reader.ownLimits(teamId)]);
  return usageReport(
    counts,
    {
      dailyEmails: limitInForce(own.dailyQuota, deps.defaults.dailyQuota),
      requestsPerSecond: limitInForce(own.rps, deps.defaults.rps),
    },
    nowMs,
  );
}
