import { describe, expect, it } from 'vitest';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { TopicsStore } from './topics.store.js';
import { expectNewestFirstPaging } from '../../testing/src/contracts/kit.js';

const fx = useStoreRedis('topics');

const newsletter = {
  name: 'Newsletter',
  description: null,
  default_subscription: 'opt_in',
  visibility: 'private',
} as const;

describe('TopicsStore', () => {
  it('creates a topic with exactly the documented hash fields and publishes topic.created', async () => {
    const store = new TopicsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const topic = await store.create(t, newsletter);
    expect(await store.get(t, topic.id)).toEqual(topic);
    expect(await store.get(t, topic.id.toUpperCase())).toEqual(topic);
    const raw = await fx.redis.hgetall(fx.keys.topic(t, topic.id));
    expect(Object.keys(raw).sort()).toEqual(
      ['created_at', 'default_subscription', 'id', 'name', 'updated_at', 'visibility'].sort(),
    );
    expect(await fx.events(t)).toEqual([
      expect.objectContaining({
        type: 'topic.created',
        teamId: t,
        data: {
          id: topic.id,
          name: 'Newsletter',
          description: null,
          default_subscription: 'opt_in',
          deleted: false,
          created_at: topic.created_at,
          updated_at: topic.updated_at,
        },
      }),
    ]);
  });

  it('updates (null clears the description), moving updated_at forward even within one ms', async () => {
    const frozen = { now: () => Date.parse('2030-01-01T00:00:00.000Z') };
    const store = new TopicsStore(fx.redis, fx.keys, frozen);
    const t = nextTeam();
    const topic = await store.create(t, { ...newsletter, description: 'Monthly' });
    const a = await store.update(t, topic.id, { name: 'News', visibility: 'public' });
    expect(a).toMatchObject({ name: 'News', visibility: 'public', description: 'Monthly' });
    const b = await store.update(t, topic.id, { description: null });
    expect(b).toMatchObject({ name: 'News', description: null });
    expect(await store.get(t, topic.id)).toEqual(b);
    expect(await fx.redis.hexists(fx.keys.topic(t, topic.id), 'description')).toBe(0);
    expect([topic.updated_at, a!.updated_at, b!.updated_at]).toEqual([
      '2030-01-01T00:00:00.000Z',
      '2030-01-01T00:00:00.001Z',
      '2030-01-01T00:00:00.002Z',
    ]);
    expect((await fx.events(t)).map((e) => [e.type, e.data.name, e.data.description])).toEqual([
      ['topic.created', 'Newsletter', 'Monthly'],
      ['topic.updated', 'News', 'Monthly'],
      ['topic.updated', 'News', null],
    ]);
    expect(await store.update(t, '0190a0b0-0000-7000-8000-000000000000', { name: 'x' })).toBeNull();
    expect(await store.update(t, 'not-an-id', { name: 'x' })).toBeNull();
  });

  it('concurrent updates all land, each event describing the record it wrote', async () => {
    const store = new TopicsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const topic = await store.create(t, newsletter);
    await Promise.all([
      store.update(t, topic.id, { name: 'A' }),
      store.update(t, topic.id, { description: 'B' }),
      store.update(t, topic.id, { visibility: 'public' }),
    ]);
    expect(await store.get(t, topic.id)).toMatchObject({ name: 'A', description: 'B', visibility: 'public' });
    const last = (await fx.events(t)).at(-1)!;
    expect(last.data).toMatchObject({ name: 'A', description: 'B' });
  });

  it('deletes the topic, its listing entry and its subscriptions; publishes topic.deleted', async () => {
    const store = new TopicsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const topic = await store.create(t, newsletter);
    await fx.redis.hset(fx.keys.topicSubscriptions(t, topic.id), 'ada@acme.test', 'opt_out');
    expect(await store.remove(t, topic.id)).toEqual(topic);
    expect(await store.get(t, topic.id)).toBeNull();
    expect(await store.all(t)).toEqual([]);
    expect(await fx.redis.exists(fx.keys.topicSubscriptions(t, topic.id))).toBe(0);
    expect(await store.remove(t, topic.id)).toBeNull();
    const deleted = (await fx.events(t)).at(-1)!;
    expect(deleted).toMatchObject({ type: 'topic.deleted', data: { id: topic.id, deleted: true } });
  });

  it('lists newest first with cursors; all() returns every topic', async () => {
    let now = Date.parse('2030-01-01T00:00:00.000Z');
    const store = new TopicsStore(fx.redis, fx.keys, { now: () => (now += 1000) });
    const t = nextTeam();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await store.create(t, { ...newsletter, name: `T${i}` })).id);
    await expectNewestFirstPaging((page) => store.list(t, page), ids);
    expect(await store.list(t, { limit: 2, after: 'nope' })).toBeNull();
    expect((await store.all(t)).map((x) => x.id)).toEqual([...ids].reverse());
    expect(await store.all(nextTeam())).toEqual([]);
  });
});
