/**
 * The usage counters behind `GET /usage` (core's usage/): per team, UTC day and month, the
 * emails accepted (`emails-sent`, counted in the acceptance's first step), received
 * (`emails-received`) and automation runs started (`automation-runs`), each counted by the write
 * that creates them (`petrelCountUsage`); and the sizes of the team's listings (contacts,
 * segments, broadcasts, domains: ZCARD, kept by the writes themselves). Reading is one pipeline.
 */
import { usagePeriods, type UsageCounts, type UsageReader } from '@petrel/core';
import type { ChainableCommander } from 'ioredis';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import type { RateLimitStore } from './rate-limit.store.js';
import { defineScripts, pipeline, type QueuedStoreCommands } from './scripts.js';

export type UsageCounter = 'emails-sent' | 'emails-received' | 'automation-runs';

/** A day's counter is read on its day only; a month's for its month (the longest is 31 days). */
const DAY_COUNTER_TTL_MS = 2 * 86_400_000;
const MONTH_COUNTER_TTL_MS = 62 * 86_400_000;

/** The arguments of `petrelCountUsage` for `n` units of `counter` at `nowMs`. */
function countArgs(
  keys: Keys,
  teamId: string,
  counter: UsageCounter,
  n: number,
  nowMs: number,
): [string, string, number, number, number] {
  const { day, month } = usagePeriods(nowMs);
  return [
    keys.usageCounter(teamId, counter, day),
    keys.usageCounter(teamId, counter, month),
    n,
    DAY_COUNTER_TTL_MS,
    MONTH_COUNTER_TTL_MS,
  ];
}

/** Count `n` units of `counter` for the team, as one command queued on a batch of its slot. */
export function queueUsageCount(
  batch: ChainableCommander,
  keys: Keys,
  teamId: string,
  counter: UsageCounter,
  n: number,
  nowMs: number,
): void {
  (batch as QueuedStoreCommands & ChainableCommander).petrelCountUsage(
    ...countArgs(keys, teamId, counter, n, nowMs),
  );
}

/** Count `n` units of `counter` for the team (one round trip). */
export async function countUsage(
  redis: RedisClient,
  keys: Keys,
  teamId: string,
  counter: UsageCounter,
  n: number,
  nowMs: number,
): Promise<void> {
  if (n > 0) await defineScripts(redis).petrelCountUsage(...countArgs(keys, teamId, counter, n, nowMs));
}

export class UsageStore implements UsageReader {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly limits: RateLimitStore,
  ) {}

  async counts(teamId: string, nowMs: number): Promise<UsageCounts> {
    const k = this.keys;
    const { day, month } = usagePeriods(nowMs);
    const batch = pipeline(this.redis, 'UsageStore.counts');
    batch.get(k.usageCounter(teamId, 'emails-sent', day));
    batch.get(k.usageCounter(teamId, 'emails-received', day));
    batch.get(k.usageCounter(teamId, 'emails-sent', month));
    batch.get(k.usageCounter(teamId, 'emails-received', month));
    batch.get(k.dailyQuota(teamId, day));
    batch.zcard(k.contacts(teamId));
    batch.zcard(k.segments(teamId));
    batch.zcard(k.broadcasts(teamId));
    batch.zcard(k.domains(teamId));
    batch.get(k.usageCounter(teamId, 'automation-runs', month));
    const replies = (await batch.exec()) ?? [];
    const n = replies.map(([err, v]) => {
      if (err) throw err;
      return Number(v ?? 0);
    });
    return {
      emailsSentToday: n[0]!,
      emailsReceivedToday: n[1]!,
      emailsSentMonth: n[2]!,
      emailsReceivedMonth: n[3]!,
      quotaUsedToday: n[4]!,
      contacts: n[5]!,
      segments: n[6]!,
      broadcasts: n[7]!,
      domains: n[8]!,
      automationRunsMonth: n[9]!,
    };
  }

  ownLimits(teamId: string): Promise<{ rps: number | null; dailyQuota: number | null }> {
    return this.limits.limits(teamId);
  }
}
