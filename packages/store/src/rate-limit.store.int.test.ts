import { describe, expect, it } from 'vitest';
import { rateLimitDecision, thresholdsInForce, type RateLimitAnswer } from '@petrel/core';
import { gcraBounds } from '@petrel/testing';
import { createRedis } from './redis.js';
import { useStoreRedis } from './redis.fixture.js';
import { ApiKeysStore } from './api-keys.store.js';
import { RateLimitStore, dailyQuotaCounter } from './rate-limit.store.js';

/** A team with none of its own limits or thresholds. */
const NONE = { rps: null, dailyQuota: null, complaintRate: null, hardBounceRate: null, minSample: null };

const fx = useStoreRedis('rate-limit');

/** The first and last of the steps' times (the server's clock, as the script read it). */
function stepWindow(answers: RateLimitAnswer[]): { fromMs: number; toMs: number } {
  const times = answers.map((a) => ('nowMs' in a ? a.nowMs : NaN));
  return { fromMs: Math.min(...times), toMs: Math.max(...times) };
}

describe('RateLimitStore: the GCRA step', () => {
  it('no limit: nothing is counted', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('free');
    const store = new RateLimitStore(fx.redis, fx.keys);
    expect(await store.take(team, 0)).toEqual({ limit: 0 });
    expect(await fx.redis.exists(fx.keys.rateLimit(team))).toBe(0);
  });

  it('admits a burst of the limit, refuses the next, on the server clock', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('burst');
    const store = new RateLimitStore(fx.redis, fx.keys);
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await store.take(team, 3));
    const admitted = answers.filter((a) => 'admitted' in a && a.admitted).length;
    // 3 at once, then one per 333 ms of the time the steps took on the server's clock (a loaded
    // machine is slow): the GCRA's bounds over the steps' own times
    const bounds = gcraBounds({ limit: 3, sent: 6, ...stepWindow(answers) });
    expect(admitted).toBeGreaterThanOrEqual(bounds.min);
    expect(admitted).toBeLessThanOrEqual(bounds.max);
    const first = rateLimitDecision(answers[0]!);
    expect(first).toMatchObject({ kind: 'allowed', limit: 3, remaining: 2 });
    const last = rateLimitDecision(answers[5]!);
    if (bounds.max === 3) expect(last).toMatchObject({ kind: 'limited', retryAfterS: 1, remaining: 0 });
    const ttl = await fx.redis.pttl(fx.keys.rateLimit(team));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2_100);
  });

  it("the team's own limit over the default; 0 switches it off; null falls back", async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('own');
    const store = new RateLimitStore(fx.redis, fx.keys);
    expect(await store.limits(team)).toEqual(NONE);
    expect(await store.setLimits(team, { rps: 7 })).toEqual({ ...NONE, rps: 7 });
    expect(await store.take(team, 2)).toMatchObject({ limit: 7, admitted: true });
    await store.setLimits(team, { rps: 0, dailyQuota: 100 });
    expect(await store.take(team, 2)).toEqual({ limit: 0 });
    expect(await store.setLimits(team, { rps: null })).toEqual({ ...NONE, dailyQuota: 100 });
    expect(await store.take(team, 2)).toMatchObject({ limit: 2 });
    expect(await store.setLimits('no-such-team', { rps: 1 })).toBeNull();
    expect(await fx.redis.exists(fx.keys.team('no-such-team'))).toBe(0);
  });

  it("the team's own broadcast protection thresholds beside its limits; null falls back", async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('protection');
    const store = new RateLimitStore(fx.redis, fx.keys);
    const deployment = { complaintRate: 0.003, hardBounceRate: 0.05, minSample: 500 };
    expect(thresholdsInForce(await store.protectionThresholds(team), deployment)).toEqual(deployment);
    await store.setLimits(team, { complaintRate: 0.2, minSample: 4 });
    expect(await store.protectionThresholds(team)).toEqual({
      complaintRate: 0.2,
      hardBounceRate: null,
      minSample: 4,
    });
    expect(thresholdsInForce(await store.protectionThresholds(team), deployment)).toEqual({
      complaintRate: 0.2,
      hardBounceRate: 0.05,
      minSample: 4,
    });
    // on the team's record, in its slot, beside the limits (which stay as they were)
    expect(await fx.redis.hget(fx.keys.team(team), 'protection_complaint_rate')).toBe('0.2');
    expect(await store.limits(team)).toMatchObject({ rps: null, dailyQuota: null });
    expect(await store.setLimits(team, { complaintRate: null })).toMatchObject({
      complaintRate: null,
      minSample: 4,
    });
    expect(await store.setLimits('no-such-team', { minSample: 1 })).toBeNull();
  });

  it('two connections (two API processes) share one allowance exactly', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('shared');
    const other = createRedis(fx.url);
    try {
      const stores = [new RateLimitStore(fx.redis, fx.keys), new RateLimitStore(other, fx.keys)];
      const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2]!.take(team, 4)));
      const admitted = answers.filter((a) => 'admitted' in a && a.admitted).length;
      const bounds = gcraBounds({ limit: 4, sent: 40, ...stepWindow(answers) });
      expect(admitted).toBeGreaterThanOrEqual(bounds.min);
      expect(admitted).toBeLessThanOrEqual(bounds.max);
    } finally {
      await other.quit();
    }
  });
});

describe('RateLimitStore: the daily quota', () => {
  it('reads a team without a quota once per cache period, and counts nothing for it', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('no-quota');
    const store = new RateLimitStore(fx.redis, fx.keys);
    let reads = 0;
    const limits = store.limits.bind(store);
    store.limits = (t) => {
      reads += 1;
      return limits(t);
    };
    const counter = dailyQuotaCounter(store, { cacheMs: 60_000 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => counter.take(team, '2026-11-23', 1, 0)),
    );
    expect(answers.every((a) => a.limit === 0)).toBe(true);
    expect(reads).toBe(1);
    expect(await fx.redis.exists(fx.keys.dailyQuota(team, '2026-11-23'))).toBe(0);
    // the default applies to it: counted, through the cached setting
    expect(await counter.take(team, '2026-11-23', 1, 5)).toEqual({ limit: 5, used: 1, admitted: true });
    expect(reads).toBe(1);
  });

  it('takes whole requests only, per day, under the team quota or the default', async () => {
    const team = await new ApiKeysStore(fx.redis, fx.keys).createTeam('quota');
    const store = new RateLimitStore(fx.redis, fx.keys);
    const counter = dailyQuotaCounter(store, { cacheMs: 0 });
    expect(await counter.take(team, '2026-11-23', 1, 0)).toEqual({ limit: 0 });
    expect(await counter.take(team, '2026-11-23', 2, 3)).toEqual({ limit: 3, used: 2, admitted: true });
    expect(await counter.take(team, '2026-11-23', 2, 3)).toEqual({ limit: 3, used: 2, admitted: false });
    expect(await counter.take(team, '2026-11-23', 1, 3)).toEqual({ limit: 3, used: 3, admitted: true });
    expect(await counter.take(team, '2026-11-24', 1, 3)).toEqual({ limit: 3, used: 1, admitted: true });
    expect(await store.quotaUsed(team, '2026-11-23')).toBe(3);
    const ttl = await fx.redis.pttl(fx.keys.dailyQuota(team, '2026-11-23'));
    expect(ttl).toBeGreaterThan(86_400_000);

    await store.setLimits(team, { dailyQuota: 5 });
    expect(await counter.take(team, '2026-11-23', 2, 3)).toEqual({ limit: 5, used: 5, admitted: true });
    await store.setLimits(team, { dailyQuota: 0 });
    expect(await counter.take(team, '2026-11-23', 50, 3)).toEqual({ limit: 0 });
  });
});
