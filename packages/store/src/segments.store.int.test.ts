import { describe, expect, it } from 'vitest';
import { useStoreRedis } from './redis.fixture.js';
import { SegmentsStore } from './segments.store.js';

const fx = useStoreRedis('segments');
let ms = Date.now();
const store = () => new SegmentsStore(fx.redis, fx.keys, { now: () => ++ms });
const MISSING = '01890000-0000-7000-8000-000000000000';

describe('SegmentsStore', () => {
  it('creates, reads (any id case), renames, lists newest first and deletes', async () => {
    const s = store();
    const a = await s.create('t1', 'A');
    const b = await s.create('t1', 'B');
    expect(await s.get('t1', a.id.toUpperCase())).toEqual(a);
    expect(await s.get('t2', a.id)).toBeNull();
    expect(await s.get('t1', 'not-an-id')).toBeNull();
    expect(await s.rename('t1', a.id, 'A2')).toBe(true);
    expect(await s.rename('t1', MISSING, 'x')).toBe(false);
    expect((await s.list('t1', { limit: 10 }))?.items.map((x) => x.name)).toEqual(['B', 'A2']);
    expect(await s.list('t1', { limit: 1 })).toEqual({ items: [b], hasMore: true });
    expect(await s.list('t1', { limit: 1, after: MISSING })).toBeNull();
    await fx.redis.zadd(fx.keys.segmentMembers('t1', a.id), 1, 'c1');
    expect(await s.remove('t1', a.id)).toBe(true);
    expect(await s.remove('t1', a.id)).toBe(false);
    expect(await fx.redis.exists(fx.keys.segmentMembers('t1', a.id))).toBe(0);
    expect((await s.list('t1', { limit: 10 }))?.items).toEqual([b]);
  });
});
