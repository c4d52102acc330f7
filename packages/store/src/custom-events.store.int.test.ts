import { describe, expect, it } from 'vitest';
import { newId } from '@petrel/core';
import type { ReceivedEventRecord } from '@petrel/contracts';
import { CustomEventsStore, RECEIVED_EVENTS_CAP, eventSendIdempotency } from './custom-events.store.js';
import { IdempotencyStore, requestFingerprint } from './idempotency.store.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';

const fx = useStoreRedis('custom-events');

describe('CustomEventsStore definitions', () => {
  it('creates a definition with the documented hash fields, read by id (any case) and by name', async () => {
    const store = new CustomEventsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const res = await store.create(t, { name: 'user.signed_up', schema: { plan: 'string' } });
    if (!res.ok) throw new Error('not created');
    const { record } = res;
    expect(record).toEqual({
      id: expect.any(String),
      name: 'user.signed_up',
      schema: { plan: 'string' },
      created_at: expect.any(String),
      updated_at: record.created_at,
    });
    expect(await store.get(t, record.id)).toEqual(record);
    expect(await store.get(t, record.id.toUpperCase())).toEqual(record);
    expect(await store.get(t, 'user.signed_up')).toEqual(record);
    expect(await store.get(t, 'User.signed_up')).toBeNull();
    expect(await store.get(nextTeam(), 'user.signed_up')).toBeNull();
    const raw = await fx.redis.hgetall(fx.keys.customEvent(t, record.id));
    expect(Object.keys(raw).sort()).toEqual(['created_at', 'id', 'name', 'rev', 'schema', 'updated_at']);

    const bare = await store.create(t, { name: 'no.schema', schema: null });
    expect(bare.ok && bare.record.schema).toBeNull();
    expect(
      bare.ok && Object.keys(await fx.redis.hgetall(fx.keys.customEvent(t, bare.record.id))),
    ).not.toContain('schema');
  });

  it('refuses a second definition of a name, also when both creates race', async () => {
    const store = new CustomEventsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.create(t, { name: 'race', schema: null })),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok)).toEqual(
      Array.from({ length: 7 }, () => ({ ok: false, reason: 'name_taken' })),
    );
    expect(await fx.redis.zcard(fx.keys.customEvents(t))).toBe(1);
  });

  it('sets and clears the schema, moving updated_at forward even within one ms', async () => {
    const frozen = { now: () => Date.parse('2030-01-01T00:00:00.000Z') };
    const store = new CustomEventsStore(fx.redis, fx.keys, frozen);
    const t = nextTeam();
    const res = await store.create(t, { name: 'e', schema: null });
    if (!res.ok) throw new Error('not created');
    const a = await store.setSchema(t, 'e', { n: 'number' });
    expect(a).toMatchObject({ schema: { n: 'number' }, updated_at: '2030-01-01T00:00:00.001Z' });
    expect(await store.get(t, res.record.id)).toEqual(a);
    const b = await store.setSchema(t, res.record.id, null);
    expect(b).toMatchObject({ schema: null, updated_at: '2030-01-01T00:00:00.002Z' });
    expect(await store.get(t, 'e')).toEqual(b);
    expect(await store.setSchema(t, 'missing', null)).toBeNull();
  });

  it('keeps every concurrent schema update (optimistic retries)', async () => {
    const store = new CustomEventsStore(fx.redis, fx.keys);
    const t = nextTeam();
    await store.create(t, { name: 'busy', schema: null });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.setSchema(t, 'busy', { [`f${i}`]: 'string' })),
    );
    expect(await fx.redis.hget(fx.keys.customEvent(t, (await store.get(t, 'busy'))!.id), 'rev')).toBe('6');
  });

  it('deletes by name or id, freeing the name; lists newest first with cursors', async () => {
    let ms = Date.parse('2030-01-01T00:00:00.000Z');
    const store = new CustomEventsStore(fx.redis, fx.keys, { now: () => ms++ });
    const t = nextTeam();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const r = await store.create(t, { name, schema: null });
      if (r.ok) ids.push(r.record.id);
    }
    const first = await store.list(t, { limit: 2 });
    expect(first?.items.map((e) => e.name)).toEqual(['c', 'b']);
    expect(first?.hasMore).toBe(true);
    const second = await store.list(t, { limit: 2, after: ids[1]! });
    expect(second).toEqual({ items: [expect.objectContaining({ name: 'a' })], hasMore: false });
    expect(await store.list(t, { limit: 2, after: newId() })).toBeNull();

    expect((await store.remove(t, 'b'))?.id).toBe(ids[1]);
    expect(await store.remove(t, 'b')).toBeNull();
    expect((await store.remove(t, ids[0]!))?.name).toBe('a');
    expect(await fx.redis.hgetall(fx.keys.customEventNames(t))).toEqual({ c: ids[2] });
    expect((await store.create(t, { name: 'b', schema: null })).ok).toBe(true);
  });
});

describe('CustomEventsStore received events', () => {
  const received = (i: number, at = Date.parse('2030-01-01T00:00:00Z') + i): ReceivedEventRecord => ({
    id: newId(at),
    name: 'user.signed_up',
    contact_id: newId(),
    payload: { i },
    created_at: new Date(at).toISOString(),
  });

  it('records once per id and reads back newest first', async () => {
    const store = new CustomEventsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const [a, b] = [received(1), received(2)];
    await store.recordReceived(t, a);
    await store.recordReceived(t, b);
    await store.recordReceived(t, { ...a, payload: { changed: true } });
    expect(await store.getReceived(t, a.id)).toEqual(a);
    expect(await store.listReceived(t, { limit: 10 })).toEqual({ items: [b, a], hasMore: false });
  });

  it(`keeps the newest ${RECEIVED_EVENTS_CAP} per team`, async () => {
    const store = new CustomEventsStore(fx.redis, fx.keys);
    const t = nextTeam();
    const all = Array.from({ length: RECEIVED_EVENTS_CAP + 5 }, (_, i) => received(i));
    for (let i = 0; i < all.length; i += 100) {
      await Promise.all(all.slice(i, i + 100).map((e) => store.recordReceived(t, e)));
    }
    expect(await fx.redis.zcard(fx.keys.receivedEvents(t))).toBe(RECEIVED_EVENTS_CAP);
    expect(await fx.redis.hlen(fx.keys.receivedEventData(t))).toBe(RECEIVED_EVENTS_CAP);
    expect(await store.getReceived(t, all[4]!.id)).toBeNull();
    expect(await store.getReceived(t, all[5]!.id)).toEqual(all[5]);
  });
});

describe('eventSendIdempotency', () => {
  it('claims with the events fingerprint, completes, then replays; another body is a mismatch', async () => {
    const idem = new IdempotencyStore(fx.redis, fx.keys);
    const port = eventSendIdempotency(
      {
        claim: async (teamId, key, fp) => {
          const res = await idem.claim(teamId, key, fp);
          return res.outcome === 'proceed'
            ? {
                outcome: 'proceed',
                token: { key: idem.redisKey(teamId, key), owner: res.owner },
                startedMs: res.startedMs,
              }
            : res;
        },
        lookup: async () => undefined,
        release: async () => undefined,
        fingerprint: () => 'unused',
      },
      idem,
      fx.redis,
    );
    const t = nextTeam();
    const body = { event: 'e', email: 'a@example.com' };
    const fp = port.fingerprint('single', body);
    expect(fp).toBe(requestFingerprint('POST', '/events/send', body));
    const claim = await port.claim(t, 'k1', fp);
    if (claim.outcome !== 'proceed') throw new Error(claim.outcome);
    await port.complete(claim.token, 202, '{"object":"event","event":"e"}');
    expect(await port.claim(t, 'k1', fp)).toEqual({
      outcome: 'replay',
      status: 202,
      body: '{"object":"event","event":"e"}',
    });
    expect(await port.claim(t, 'k1', port.fingerprint('single', { ...body, payload: {} }))).toEqual({
      outcome: 'mismatch',
    });
  });
});
