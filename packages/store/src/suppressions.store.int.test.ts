import { describe, expect, it } from 'vitest';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { SuppressionsStore } from './suppressions.store.js';

const fx = useStoreRedis('suppressions');

describe('SuppressionsStore', () => {
  it('adds one entry per mailbox however it is spelled, publishing suppression.added once', async () => {
    const store = new SuppressionsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const first = await store.add(t, 'Ada@Bücher.example', 'bounce', 'email-1');
    expect(first.created).toBe(true);
    expect(first.record).toMatchObject({
      email: 'Ada@Bücher.example',
      origin: 'bounce',
      source_id: 'email-1',
    });
    const again = await store.add(t, 'ada@xn--bcher-kva.example', 'manual', null);
    expect(again).toEqual({ record: first.record, created: false });
    expect(await fx.redis.hgetall(fx.keys.suppressionByEmail(t))).toEqual({
      'ada@xn--bcher-kva.example': first.record.id,
    });
    expect(await store.get(t, 'ADA@bücher.example')).toEqual(first.record);
    expect(await store.get(t, first.record.id)).toEqual(first.record);
    expect(await store.get(t, 'nobody@acme.test')).toBeNull();
    expect(await store.get(t, 'not-an-id')).toBeNull();
    expect(await fx.events(t)).toEqual([
      expect.objectContaining({
        type: 'suppression.added',
        teamId: t,
        data: {
          id: first.record.id,
          email: 'Ada@Bücher.example',
          origin: 'bounce',
          source_id: 'email-1',
          created_at: first.record.created_at,
        },
      }),
    ]);
  });

  it('concurrent adds of one mailbox (two bounces at once) make one entry and one event', async () => {
    const store = new SuppressionsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.add(t, `Bob@acme.test`, 'bounce', `email-${i}`)),
    );
    expect(new Set(results.map((r) => r.record.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(await fx.redis.zcard(fx.keys.suppressions(t))).toBe(1);
    expect(await fx.events(t)).toHaveLength(1);
  });

  it('adds many in one call (repeats inside the batch included), returning ids in order', async () => {
    const store = new SuppressionsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const existing = await store.add(t, 'old@acme.test', 'complaint', null);
    const added = await store.addMany(
      t,
      ['a@acme.test', 'OLD@acme.test', 'b@acme.test', 'A@acme.test'],
      'manual',
      null,
    );
    expect(added.map((a) => a.created)).toEqual([true, false, true, false]);
    expect(added[1]!.id).toBe(existing.record.id);
    expect(added[3]!.id).toBe(added[0]!.id);
    expect(await fx.redis.zcard(fx.keys.suppressions(t))).toBe(3);
    expect(await store.get(t, 'old@acme.test')).toMatchObject({ origin: 'complaint', source_id: null });
  });

  it('removes by id or address (one suppression.removed), then 404s; batch removal reports each', async () => {
    const store = new SuppressionsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const a = (await store.add(t, 'a@acme.test', 'manual', null)).record;
    const b = (await store.add(t, 'b@acme.test', 'bounce', 'e1')).record;
    const c = (await store.add(t, 'c@acme.test', 'manual', null)).record;
    expect(await store.remove(t, 'A@acme.test')).toEqual(a);
    expect(await store.remove(t, a.id)).toBeNull();
    expect(await store.get(t, 'a@acme.test')).toBeNull();
    expect(await fx.redis.hexists(fx.keys.suppressionByEmail(t), 'a@acme.test')).toBe(0);

    expect(await store.removeMany(t, { ids: [b.id, 'nope', b.id] })).toEqual([
      { id: b.id, deleted: true },
      { id: 'nope', deleted: false },
      { id: b.id, deleted: false },
    ]);
    expect(await store.removeMany(t, { emails: ['C@acme.test', 'x@acme.test'] })).toEqual([
      { id: c.id, deleted: true },
      { id: 'x@acme.test', deleted: false },
    ]);
    expect(await fx.redis.zcard(fx.keys.suppressions(t))).toBe(0);
    expect(await fx.redis.zcard(store.originIndex(t, 'bounce'))).toBe(0);
    expect(await fx.redis.hlen(fx.keys.suppressionByEmail(t))).toBe(0);
    const removed = (await fx.events(t)).filter((e) => e.type === 'suppression.removed');
    expect(removed.map((e) => e.data.id)).toEqual([a.id, b.id, c.id]);
    expect(removed[1]!.data).toEqual({
      id: b.id,
      email: 'b@acme.test',
      origin: 'bounce',
      source_id: 'e1',
      created_at: b.created_at,
    });
  });

  it('lists newest first, all or one origin, with cursors in either listing', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const store = new SuppressionsStore(fx.redis, fx.keys, { now: () => (now += 1000) });
    const t = nextTeam();
    const origins = ['bounce', 'manual', 'bounce', 'complaint', 'bounce', 'manual'] as const;
    const ids: string[] = [];
    for (const [i, origin] of origins.entries())
      ids.push((await store.add(t, `u${i}@acme.test`, origin, null)).record.id);
    const newest = [...ids].reverse();
    const all = await store.list(t, { limit: 10 });
    expect(all?.items.map((s) => s.id)).toEqual(newest);
    expect(all?.hasMore).toBe(false);

    const bounces = [ids[4], ids[2], ids[0]];
    const p1 = await store.list(t, { limit: 2 }, 'bounce');
    expect(p1?.items.map((s) => s.id)).toEqual(bounces.slice(0, 2));
    expect(p1?.hasMore).toBe(true);
    const p2 = await store.list(t, { limit: 2, after: bounces[1]! }, 'bounce');
    expect(p2?.items.map((s) => s.id)).toEqual(bounces.slice(2));
    expect(p2?.hasMore).toBe(false);
    expect(
      (await store.list(t, { limit: 2, before: bounces[2]! }, 'bounce'))?.items.map((s) => s.id),
    ).toEqual(bounces.slice(0, 2));
    // A cursor of another origin names nothing in this listing.
    expect(await store.list(t, { limit: 2, after: ids[1]! }, 'bounce')).toBeNull();
    expect((await store.list(t, { limit: 5 }, 'complaint'))?.items.map((s) => s.origin)).toEqual([
      'complaint',
    ]);
  });
});
