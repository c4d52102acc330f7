import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis, uniquePrefix, type TestRedis } from '@petrel/testing';
import { createRedis, type Redis } from './redis.js';
import { Keys } from './keys.js';
import { IdempotencyStore, requestFingerprint } from './idempotency.store.js';

let server: TestRedis;
let redis: Redis;
let keys: Keys;
beforeAll(async () => {
  server = await startRedis({ appendonly: false });
  redis = createRedis(server.url);
  keys = new Keys(uniquePrefix('idem'));
});
afterAll(async () => {
  await redis.quit();
  await server.stop();
});

describe('IdempotencyStore.lookup (read-only peek)', () => {
  it('reports absent, in-flight, mismatch and replay without claiming or touching the record', async () => {
    const store = new IdempotencyStore(redis, keys, 1_000);
    const fp = requestFingerprint('POST', '/emails', { a: 1 });
    const key = store.redisKey('t', 'k');

    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'absent' });
    expect(await redis.exists(key)).toBe(0); // a peek never creates the key

    const claim = await store.claim('t', 'k', fp, 10_000);
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'in_flight' });
    expect(await store.lookup('t', 'k', 'other')).toEqual({ outcome: 'mismatch' });
    // An expired lock stays in flight for a peek: only a claim takes it over.
    const before = await redis.hgetall(key);
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'in_flight' });
    expect(await redis.hgetall(key)).toEqual(before);

    const multi = redis.multi();
    store.completeIn(multi, { key, owner: claim.owner }, 200, '{"id":"x"}');
    await multi.exec();
    const ttl = await redis.pttl(key);
    expect(await store.lookup('t', 'k', fp)).toEqual({ outcome: 'replay', status: 200, body: '{"id":"x"}' });
    expect(await store.lookup('t', 'k', 'other')).toEqual({ outcome: 'mismatch' });
    expect(await redis.pttl(key)).toBeLessThanOrEqual(ttl); // the TTL is not refreshed
    expect(await store.lookup('t2', 'k', fp)).toEqual({ outcome: 'absent' }); // per team
  });

  it('a released claim is absent again', async () => {
    const store = new IdempotencyStore(redis, keys);
    const claim = await store.claim('t', 'released', 'fp');
    if (claim.outcome !== 'proceed') throw new Error('expected proceed');
    await store.release({ key: store.redisKey('t', 'released'), owner: claim.owner });
    expect(await store.lookup('t', 'released', 'fp')).toEqual({ outcome: 'absent' });
  });
});
