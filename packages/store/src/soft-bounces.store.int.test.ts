/**
 * The soft-bounce streaks (core deliver/soft-bounces.ts) on a real Redis (and, in the
 * integration-cluster project, a real cluster): `petrelRecordSoftBounce` counts each email once
 * per address however it is spelled, keeps the first bounce's time, expires the streak its TTL
 * after the latest bounce; `reset` ends several addresses' streaks in one command of one slot,
 * and a delivery's `EmailsStore.recordEvents` ends those it names in its own script.
 */
import { describe, expect, it } from 'vitest';
import { softBounceSuppresses } from '@petrel/core';
import type { EmailEvent } from '@petrel/contracts';
import { newEmail, useStoreRedis } from './redis.fixture.js';
import { EmailsStore } from './emails.store.js';
import { SoftBounceStore } from './soft-bounces.store.js';

const fx = useStoreRedis('soft-bounces');
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);
const TTL = 30 * DAY;

const event = (teamId: string, type: EmailEvent['type']): EmailEvent => ({
  id: type,
  type,
  created_at: new Date(T0).toISOString(),
  teamId,
  data: {},
});

/** The address's next soft bounce (at T0 + 1 day) starts a streak afresh. */
async function startsAfresh(store: SoftBounceStore, t: string, address: string, emailId: string) {
  expect(await store.record(t, address, emailId, T0 + DAY, TTL)).toEqual({ emails: 1, firstMs: T0 + DAY });
}

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
    await startsAfresh(store, t, 'a@acme.test', 'em-3');
    await startsAfresh(store, t, 'b@acme.test', 'em-3');
  });

  it("a delivery's recorded events end the streaks they name, in the same script", async () => {
    const store = new SoftBounceStore(fx.redis, fx.keys);
    const emails = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const t = team();
    await store.record(t, 'a@acme.test', 'em-0', T0, TTL);
    await store.record(t, 'b@acme.test', 'em-0', T0, TTL);
    await store.record(t, 'kept@acme.test', 'em-0', T0, TTL);
    await emails.stage(t, [newEmail('em-1', event(t, 'email.queued'))], new Date());
    const moved = await emails.recordEvents(
      t,
      'em-1',
      [
        { status: 'sent', event: event(t, 'email.sent') },
        { status: 'delivered', event: event(t, 'email.delivered') },
      ],
      { attempts: '1' },
      { endSoftBounceStreaks: ['A@acme.test', 'b@acme.test', 'never@acme.test'] },
    );
    expect(moved).toBe('moved');
    expect(await emails.get(t, 'em-1')).toMatchObject({ status: 'delivered', attempts: 1 });
    // a and b start afresh; an address the delivery did not name keeps its streak
    await startsAfresh(store, t, 'a@acme.test', 'em-2');
    await startsAfresh(store, t, 'b@acme.test', 'em-2');
    expect(await store.record(t, 'kept@acme.test', 'em-2', T0 + DAY, TTL)).toEqual({
      emails: 2,
      firstMs: T0,
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
