/**
 * The per-team limits: the request rate every API and SMTP process draws on (one GCRA step per
 * request, `petrelTakeRateLimit`), the daily sending quota acceptance counts against
 * (`petrelTakeDailyQuota`), and the team's own values of both on its record (`rate_limit_rps`,
 * `daily_quota`; absent = the deployment's default, 0 = none), set with the CLI. The rules and
 * the header values are packages/core's (ratelimit/). The team's broadcast protection thresholds
 * live beside them (`protection_complaint_rate`, `protection_hard_bounce_rate`,
 * `protection_min_sample`; absent = BROADCAST_PROTECTION_*), set with the same CLI command and
 * read by the worker when core's protection rule runs (broadcasts/protection.ts).
 */
import {
  RATE_LIMIT_WINDOW_MS,
  type TeamProtectionThresholds,
  type TeamProtectionThresholdsReader,
  type DailyQuotaAnswer,
  type DailyQuotaCounter,
  type RateLimitAnswer,
  type RateLimiter,
} from '@petrel/core';
import { LRUCache } from 'lru-cache';
import { TeamStore } from './team-store.js';

/** A day's counter outlives its day by one, so a request at midnight never finds it gone early. */
const QUOTA_COUNTER_TTL_MS = 2 * 86_400_000;

const FIELDS = {
  rps: 'rate_limit_rps',
  dailyQuota: 'daily_quota',
  complaintRate: 'protection_complaint_rate',
  hardBounceRate: 'protection_hard_bounce_rate',
  minSample: 'protection_min_sample',
} as const;
const LIMIT_KEYS = Object.keys(FIELDS) as (keyof typeof FIELDS)[];

/**
 * A team's own limits: a number (0 = none for this team) or null (the deployment's default); and
 * its own broadcast protection thresholds (null: the deployment's).
 */
export interface TeamLimits extends TeamProtectionThresholds {
  rps: number | null;
  dailyQuota: number | null;
}

export class RateLimitStore extends TeamStore implements RateLimiter, TeamProtectionThresholdsReader {
  async take(teamId: string, defaultLimit: number): Promise<RateLimitAnswer> {
    const r = await this.redis.petrelTakeRateLimit(
      this.keys.team(teamId),
      this.keys.rateLimit(teamId),
      defaultLimit,
      RATE_LIMIT_WINDOW_MS,
    );
    const limit = Number(r[0]);
    if (!(limit > 0)) return { limit: 0 };
    return { limit, admitted: Number(r[1]) === 1, tatMs: Number(r[2]), nowMs: Number(r[3]) };
  }

  /** Take `count` emails of the team's quota for `day` ({@link dailyQuotaCounter}). */
  async takeQuota(
    teamId: string,
    day: string,
    count: number,
    defaultQuota: number,
  ): Promise<DailyQuotaAnswer> {
    const [limit = 0, used = 0, taken = 0] = await this.redis.petrelTakeDailyQuota(
      this.keys.team(teamId),
      this.keys.dailyQuota(teamId, day),
      count,
      defaultQuota,
      QUOTA_COUNTER_TTL_MS,
    );
    return limit > 0 ? { limit, used, admitted: taken === 1 } : { limit: 0 };
  }

  /** The team's own limits (null: the default applies). */
  async limits(teamId: string): Promise<TeamLimits> {
    const values = await this.redis.hmget(this.keys.team(teamId), ...LIMIT_KEYS.map((k) => FIELDS[k]));
    const own = (i: number): number | null => (values[i] == null ? null : Number(values[i]));
    return {
      rps: own(0),
      dailyQuota: own(1),
      complaintRate: own(2),
      hardBounceRate: own(3),
      minSample: own(4),
    };
  }

  /** The team's own broadcast protection thresholds (null: the deployment's). */
  async protectionThresholds(teamId: string): Promise<TeamProtectionThresholds> {
    const { complaintRate, hardBounceRate, minSample } = await this.limits(teamId);
    return { complaintRate, hardBounceRate, minSample };
  }

  /**
   * Set the limits given (a number, or null to fall back to the default); the others stay.
   * Returns them all, or null when the team does not exist (nothing is written then).
   */
  async setLimits(teamId: string, change: Partial<TeamLimits>): Promise<TeamLimits | null> {
    const key = this.keys.team(teamId);
    if ((await this.redis.exists(key)) === 0) return null;
    for (const k of LIMIT_KEYS) {
      const v = change[k];
      if (v === undefined) continue;
      if (v === null) await this.redis.hdel(key, FIELDS[k]);
      else await this.redis.petrelSetFieldsIfExists(key, FIELDS[k], String(v));
    }
    return this.limits(teamId);
  }

  /** The counter of the day, for reports (0 when nothing was counted). */
  async quotaUsed(teamId: string, day: string): Promise<number> {
    return Number((await this.redis.get(this.keys.dailyQuota(teamId, day))) ?? 0);
  }
}

/** How long the acceptance path reuses a team's own quota setting (a CLI change holds within it). */
export const TEAM_QUOTA_CACHE_MS = 5_000;

/**
 * The store as the daily-quota stage's port. The stage runs for every accepted email, and most
 * teams have no quota: the team's own setting is read at most once per `cacheMs` (shared by the
 * emails of a batch), and the counter's script runs only when a quota applies.
 */
export function dailyQuotaCounter(store: RateLimitStore, opts: { cacheMs?: number } = {}): DailyQuotaCounter {
  const ttl = opts.cacheMs ?? TEAM_QUOTA_CACHE_MS;
  const own = ttl > 0 ? new LRUCache<string, Promise<number | null>>({ max: 10_000, ttl }) : null;
  const ownQuota = (teamId: string): Promise<number | null> => {
    let q = own?.get(teamId);
    if (!q) {
      q = store.limits(teamId).then((l) => l.dailyQuota);
      q.catch(() => own?.delete(teamId));
      own?.set(teamId, q);
    }
    return q;
  };
  return {
    async take(teamId, day, count, defaultQuota) {
      const quota = (await ownQuota(teamId)) ?? defaultQuota;
      if (!(quota > 0)) return { limit: 0 };
      return store.takeQuota(teamId, day, count, defaultQuota);
    },
  };
}
