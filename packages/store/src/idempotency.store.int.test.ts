import { describe, expect, it } from 'vitest';
import { useStoreRedis } from './redis.fixture.js';
import { IdempotencyStore, requestFingerprint } from './idempotency.store.js';
import { execAll, transaction } from './scripts.js';

const fx = useStoreRedis('idem');

describe('IdempotencyStore.lookup (read-only peek)', () => {
  it('reports absent, in-flight, mismatch and replay without claiming or touching the record', async () => {
    const store = new IdempotencyStore(fx.redis, fx.keys, 1_000);
    const fp = requestFingerprint('POST', '/emails', { a: 1 });
    const key = store.redisKey('t', 'k');

    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'absent' });
    expect(await fx.redis.exists(key)).toBe(0); // a peek never creates the key

    const claim = await store.claim('t', 'k', fp, 10_000);
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'in_flight' });
    expect(await store.lookup('t', 'k', 'other')).toEqual({ outcome: 'mismatch' });
    // An expired lock stays in flight for a peek: only a claim takes it over.
    const before = await fx.redis.hgetall(key);
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'in_flight' });
    expect(await fx.redis.hgetall(key)).toEqual(before);

    const multi = transaction(fx.redis, 'completion');
    store.completeIn(multi, { key, owner: claim.owner }, 200, '{"id":"x"}');
    await execAll(multi);
    const ttl = await fx.redis.pttl(key);
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'replay', status: 200, body: '{"id":"x"}' });
    expect(await store.lookup('t', 'k', 'other')).toEqual({ outcome: 'mismatch' });
    expect(await fx.redis.pttl(key)).toBeLessThanOrEqual(ttl); // the TTL is not refreshed
    expect(await store.lookup('t2', 'k', fp)).toEqual({ outcome: 'absent' }); // per team
  });

  it('a released claim is absent again', async () => {
    const store = new IdempotencyStore(fx.redis, fx.keys);
    const claim = await store.claim('t', 'released', 'fp');
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    await store.release({ key: store.redisKey('t', 'released'), owner: claim.owner });
    expect(await store.lookup('t', 'released', 'fp')).toEqual({ outcome: 'absent' });
  });
});
