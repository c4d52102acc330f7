/**
 * The soft-bounce streaks (core deliver/soft-bounces.ts) on a real Redis (and, in the
 * integration-cluster project, a real cluster): `petrelRecordSoftBounce` counts each email once
 * per address however it is spelled, keeps the first bounce's time, expires the streak its TTL
 * after the latest bounce; `reset` ends several addresses' streaks in one command of one slot.
 */
import { describe, expect, it } from 'vitest';
import { softBounceSuppresses } from '@petrel/core';
import { useStoreRedis } from './redis.fixture.js';
import { SoftBounceStore } from './soft-bounces.store.js';

const fx = useStoreRedis('soft-bounces');
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const TTL = 30 * DAY;

let teamCounter = 0;
const team = (): string => `team-${++teamCounter}`;

describe('SoftBounceStore', () => {
  it('counts each email once per mailbox, from the first bounce, and the rule reads it', async () => {
    const store = new SoftBounceStore(fx.redis, fx.keys);
    const t = team();
    expect(await store.record(t, 'Full@Bücher.example', 'em-1', T0, TTL)).toEqual({ emails: 1, firstMs: T0 });
    // the same email again (a re-run), spelled otherwise: not counted twice
    expect(await store.record(t, 'full@xn--bcher-kva.example', 'em-1', T0 + 1, TTL)).toEqual({
      emails: 1,
      firstMs: T0,
    });
    await store.record(t, 'full@bücher.example', 'em-2', T0 + DAY, TTL);
    const third = await store.record(t, 'FULL@bücher.example', 'em-3', T0 + 2 * DAY, TTL);
    expect(third).toEqual({ emails: 3, firstMs: T0 });
    expect(softBounceSuppresses(third, { emails: 3, days: 2 }, T0 + 2 * DAY)).toBe(true);
    // one key, in the team's slot, expiring with the TTL of the latest call
    const key = fx.keys.softBounceStreak(t, 'full@xn--bcher-kva.example');
    expect(key).toContain(`{${t}}`);
    const pttl = await fx.redis.pttl(key);
    expect(pttl).toBeGreaterThan(TTL - 60_000);
    expect(pttl).toBeLessThanOrEqual(TTL);
  });

  it('teams keep their own streaks', async () => {
    const store = new SoftBounceStore(fx.redis, fx.keys);
    const [a, b] = [team(), team()];
    await store.record(a, 'x@acme.test', 'em-1', T0, TTL);
    await store.record(a, 'x@acme.test', 'em-2', T0, TTL);
    expect(await store.record(b, 'x@acme.test', 'em-3', T0, TTL)).toEqual({ emails: 1, firstMs: T0 });
  });

  it('reset ends the streaks of several addresses: the next bounce starts afresh', async () => {
    const store = new SoftBounceStore(fx.redis, fx.keys);
    const t = team();
    await store.record(t, 'a@acme.test', 'em-1', T0, TTL);
    await store.record(t, 'a@acme.test', 'em-2', T0, TTL);
    await store.record(t, 'b@acme.test', 'em-1', T0, TTL);
    await store.reset(t, ['A@acme.test', 'b@acme.test', 'never@acme.test']);
    await store.reset(t, []);
    expect(await store.record(t, 'a@acme.test', 'em-3', T0 + DAY, TTL)).toEqual({
      emails: 1,
      firstMs: T0 + DAY,
    });
    expect(await store.record(t, 'b@acme.test', 'em-3', T0 + DAY, TTL)).toEqual({
      emails: 1,
      firstMs: T0 + DAY,
    });
  });

  it('a streak left alone expires with its TTL', async () => {
    const store = new SoftBounceStore(fx.redis, fx.keys);
    const t = team();
    await store.record(t, 'gone@acme.test', 'em-1', T0, 1);
    const key = fx.keys.softBounceStreak(t, 'gone@acme.test');
    // PEXPIRE 1 ms: Redis drops it on the next access after the millisecond has passed
    await new Promise<void>((resolve) => setImmediate(resolve));
    await expect.poll(() => fx.redis.exists(key), { timeout: 5_000 }).toBe(0);
  });
});
