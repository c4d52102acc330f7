import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastStatus } from '@petrel/contracts';
import {
  BROADCAST_MACHINE,
  type BroadcastContent,
  type BroadcastProtectionPort,
  type BroadcastsPort,
} from '@petrel/core';
import { MemoryBroadcasts } from '@petrel/testing';
import { BroadcastsStore } from './broadcasts.store.js';
import { createRedis, type RedisClient } from './redis.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { UNKNOWN_ID } from '../../testing/src/contracts/kit.js';

const fx = useStoreRedis('broadcasts');

/** A clock that moves 1 ms per read, so records created in one test never tie. */
function tickingClock(start = Date.parse('2030-01-01T00:00:00.000Z')): { now(): number } {
  let t = start;
  return { now: () => t++ };
}

const content: BroadcastContent = {
  name: 'November news',
  segment_id: '0198a0a0-0000-7000-8000-000000000001',
  from: 'Acme <news@acme.test>',
  subject: 'News',
  reply_to: ['a@acme.test', 'b@acme.test'],
  html: '<p>Hi {{{contact.first_name|there}}}</p>',
  text: null,
  preview_text: null,
  topic_id: null,
};

const store = (): BroadcastsStore => new BroadcastsStore(fx.redis, fx.keys, tickingClock());
/** A store, a new team, and a draft of `content` in it. */
async function draft() {
  const s = store();
  const t = nextTeam();
  return { s, t, b: await s.create(t, content) };
}

describe('BroadcastsStore: API side', () => {
  it('creates a draft that reads back whole; null fields are absent from the hash', async () => {
    const { s, t, b } = await draft();
    expect(b).toMatchObject({ ...content, status: 'draft', scheduled_at: null, sent_at: null });
    expect(b.counts).toEqual({ total: 0, enqueued: 0, skipped: 0 });
    expect(await s.get(t, b.id)).toEqual(b);
    expect(await s.get(t, b.id.toUpperCase())).toEqual(b);
    expect(await s.get(t, 'not-an-id')).toBeNull();
    const raw = await fx.redis.hgetall(fx.keys.broadcast(t, b.id));
    expect(Object.keys(raw).sort()).toEqual(
      [
        'created_at',
        'from',
        'html',
        'id',
        'name',
        'reply_to',
        'rev',
        'segment_id',
        'status',
        'subject',
      ].sort(),
    );
  });

  it('lists newest first with cursors; null for an unknown cursor', async () => {
    const s = store();
    const t = nextTeam();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await s.create(t, { ...content, name: `b${i}` })).id);
    const newest = [...ids].reverse();
    const all = await s.list(t, { limit: 10 });
    expect(all?.items.map((b) => b.id)).toEqual(newest);
    expect(all?.hasMore).toBe(false);
    const first = await s.list(t, { limit: 2 });
    expect(first).toMatchObject({ hasMore: true });
    expect(first?.items.map((b) => b.id)).toEqual(newest.slice(0, 2));
    const next = await s.list(t, { limit: 2, after: newest[1]! });
    expect(next?.items.map((b) => b.id)).toEqual(newest.slice(2, 4));
    expect(await s.list(t, { limit: 2, after: UNKNOWN_ID })).toBeNull();
    // the listing's reads leave the bodies out, the rest is the same
    const summaries = await s.listSummaries(t, { limit: 2, after: newest[1]! });
    expect(summaries).toEqual({
      hasMore: true,
      items: next!.items.map((b) => ({ ...b, html: null, text: null })),
    });
    expect(await s.listSummaries(t, { limit: 2, before: newest[0]! })).toEqual({ items: [], hasMore: false });
    expect(await s.listSummaries(t, { limit: 2, before: 'nope' })).toBeNull();
  });

  it('updates a draft (null clears a field); anything else is refused with its status', async () => {
    const { s, t, b } = await draft();
    const res = await s.update(t, b.id, { subject: 'Fresh', reply_to: null, text: 'plain', name: undefined });
    expect(res).toEqual({
      ok: true,
      record: { ...b, subject: 'Fresh', reply_to: null, text: 'plain' },
    });
    expect(await fx.redis.hexists(fx.keys.broadcast(t, b.id), 'reply_to')).toBe(0);
    await s.schedule(t, b.id, Date.parse('2030-02-01T00:00:00.000Z'));
    expect(await s.update(t, b.id, { subject: 'Late' })).toEqual({
      ok: false,
      reason: 'status',
      status: 'scheduled',
    });
    expect((await s.get(t, b.id))?.subject).toBe('Fresh');
    expect(await s.update(t, UNKNOWN_ID, { subject: 'x' })).toEqual({
      ok: false,
      reason: 'not_found',
    });
  });

  it('schedules a draft once; cancels a scheduled one; a canceled one cannot be scheduled again', async () => {
    const { s, t, b } = await draft();
    expect(await s.cancel(t, b.id)).toEqual({ ok: false, reason: 'status', status: 'draft' });
    const due = Date.parse('2030-02-01T10:00:00.000Z');
    const scheduled = await s.schedule(t, b.id, due);
    expect(scheduled).toMatchObject({
      ok: true,
      record: { status: 'scheduled', scheduled_at: '2030-02-01T10:00:00.000Z' },
    });
    expect(await s.schedule(t, b.id, due)).toEqual({ ok: false, reason: 'status', status: 'scheduled' });
    expect(await s.cancel(t, b.id)).toMatchObject({ ok: true, record: { status: 'canceled' } });
    expect(await s.schedule(t, b.id, due)).toEqual({ ok: false, reason: 'status', status: 'canceled' });
    expect(await s.cancel(t, b.id)).toEqual({ ok: false, reason: 'status', status: 'canceled' });
  });

  it('removes a draft or a scheduled broadcast (record and listing); refuses queued, sent, canceled', async () => {
    const s = store();
    const t = nextTeam();
    const draft = await s.create(t, content);
    const scheduled = await s.create(t, content);
    await s.schedule(t, scheduled.id, Date.now());
    const queued = await s.create(t, content);
    await s.schedule(t, queued.id, Date.now());
    await s.startFanout(t, queued.id, Date.now());
    const sent = await s.create(t, content);
    await s.schedule(t, sent.id, Date.now());
    await s.startFanout(t, sent.id, Date.now());
    await s.finishFanout(t, sent.id, Date.now());
    const canceled = await s.create(t, content);
    await s.schedule(t, canceled.id, Date.now());
    await s.cancel(t, canceled.id);

    expect(await s.remove(t, draft.id)).toMatchObject({
      ok: true,
      record: { id: draft.id, status: 'draft' },
    });
    expect(await s.remove(t, scheduled.id.toUpperCase())).toMatchObject({
      ok: true,
      record: { id: scheduled.id, status: 'scheduled' },
    });
    for (const [b, status] of [
      [queued, 'queued'],
      [sent, 'sent'],
      [canceled, 'canceled'],
    ] as const) {
      const before = await fx.redis.hgetall(fx.keys.broadcast(t, b.id));
      expect(await s.remove(t, b.id)).toEqual({ ok: false, reason: 'status', status });
      expect(await fx.redis.hgetall(fx.keys.broadcast(t, b.id))).toEqual(before);
    }
    expect(await s.get(t, draft.id)).toBeNull();
    expect(await s.get(t, scheduled.id)).toBeNull();
    expect(await s.remove(t, draft.id)).toEqual({ ok: false, reason: 'not_found' });
    expect(await s.remove(t, 'nope')).toEqual({ ok: false, reason: 'not_found' });
    const listed = await s.list(t, { limit: 10 });
    expect(listed?.items.map((b) => b.id).sort()).toEqual([queued.id, sent.id, canceled.id].sort());
  });
});

describe('BroadcastsStore: fan-out side', () => {
  it('starts once (scheduled → queued, start fixed), resumes at the checkpoint, finishes (queued → sent)', async () => {
    const { s, t, b } = await draft();
    expect(await s.startFanout(t, b.id, 1)).toEqual({ ok: false, reason: 'status' });
    await s.schedule(t, b.id, 1_000);
    const first = await s.startFanout(t, b.id, 1_000);
    expect(first).toMatchObject({ ok: true, startedMs: 1_000, cursor: null, record: { status: 'queued' } });
    const c17 = { score: 17, contactId: 'c-17' };
    expect(await s.checkpoint(t, b.id, { from: null, to: c17 }, { total: 3, enqueued: 2, skipped: 1 })).toBe(
      'ok',
    );
    // a second run that started from the same place: its page is not counted again
    expect(await s.checkpoint(t, b.id, { from: null, to: c17 }, { total: 3, enqueued: 2, skipped: 1 })).toBe(
      'moved',
    );
    expect(
      await s.checkpoint(
        t,
        b.id,
        { from: c17, to: { score: 20, contactId: 'c-20' } },
        { total: 2, enqueued: 2, skipped: 0 },
      ),
    ).toBe('ok');
    const resumed = await s.startFanout(t, b.id, 9_999);
    expect(resumed).toMatchObject({
      ok: true,
      startedMs: 1_000,
      cursor: { score: 20, contactId: 'c-20' },
      record: { status: 'queued', counts: { total: 5, enqueued: 4, skipped: 1 } },
    });
    expect(await s.finishFanout(t, b.id, Date.parse('2030-03-01T00:00:00.000Z'))).toBe(true);
    expect(await s.get(t, b.id)).toMatchObject({ status: 'sent', sent_at: '2030-03-01T00:00:00.000Z' });
    expect(await s.finishFanout(t, b.id, 0)).toBe(false);
    expect(await s.startFanout(t, b.id, 0)).toEqual({ ok: false, reason: 'status' });
    expect(await s.startFanout(t, UNKNOWN_ID, 0)).toEqual({
      ok: false,
      reason: 'not_found',
    });
  });

  it('a cancel stops the fan-out: the next checkpoint and the finish answer false', async () => {
    const { s, t, b } = await draft();
    await s.schedule(t, b.id, 1);
    await s.startFanout(t, b.id, 1);
    expect(await s.cancel(t, b.id)).toMatchObject({ ok: true, record: { status: 'canceled' } });
    expect(
      await s.checkpoint(
        t,
        b.id,
        { from: null, to: { score: 1, contactId: 'c' } },
        { total: 1, enqueued: 1, skipped: 0 },
      ),
    ).toBe('not_queued');
    expect(await s.finishFanout(t, b.id, 2)).toBe(false);
    expect((await s.get(t, b.id))?.counts).toEqual({ total: 0, enqueued: 0, skipped: 0 });
  });

  describe('a DELETE racing the fan-out start (two connections)', () => {
    let other: RedisClient;
    beforeAll(() => {
      other = createRedis(fx.url);
    });
    afterAll(async () => {
      await other.quit();
    });

    it('50 broadcasts: for each, exactly one of the two wins', async () => {
      const api = new BroadcastsStore(fx.redis, fx.keys);
      const scheduler = new BroadcastsStore(other, fx.keys);
      const t = nextTeam();
      const ids: string[] = [];
      for (let i = 0; i < 50; i++) {
        const b = await api.create(t, content);
        await api.schedule(t, b.id, Date.now());
        ids.push(b.id);
      }
      const outcomes = await Promise.all(
        ids.map(async (id, i) => {
          const del = () => api.remove(t, id);
          const start = () => scheduler.startFanout(t, id, Date.now());
          // alternate who is sent first; both are in flight together
          const [d, s] =
            i % 2 === 0
              ? await Promise.all([del(), start()])
              : await Promise.all([start(), del()]).then(([x, y]) => [y, x] as const);
          return { id, deleted: d.ok, started: s.ok, d, s };
        }),
      );
      for (const o of outcomes) {
        expect(o.deleted !== o.started, JSON.stringify(o)).toBe(true);
        if (o.deleted) {
          expect(o.s).toEqual({ ok: false, reason: 'not_found' });
          expect(await api.get(t, o.id)).toBeNull();
        } else {
          expect(o.d).toEqual({ ok: false, reason: 'status', status: 'queued' });
          expect((await api.get(t, o.id))?.status).toBe('queued');
        }
      }
    });
  });
});

describe('BroadcastsStore.forSend', () => {
  it('reads the status fresh and caches the content once the broadcast left draft', async () => {
    const { s, t, b } = await draft();
    const key = fx.keys.broadcast(t, b.id);
    expect(await s.forSend(t, b.id)).toMatchObject({ status: 'draft', content: { html: content.html } });
    // a draft is never cached: a change shows at once
    await s.update(t, b.id, { html: '<p>v2</p>' });
    expect((await s.forSend(t, b.id))?.content.html).toBe('<p>v2</p>');

    await s.schedule(t, b.id, 1);
    expect(await s.forSend(t, b.id)).toEqual({
      status: 'scheduled',
      content: expect.objectContaining({ html: '<p>v2</p>' }),
    });
    // content comes from the cache from now on (a write behind the store's back does not show) …
    await fx.redis.hset(key, 'html', '<p>tampered</p>');
    await s.startFanout(t, b.id, 2);
    // … but the status is read every time
    expect(await s.forSend(t, b.id)).toMatchObject({ status: 'queued', content: { html: '<p>v2</p>' } });
    await s.cancel(t, b.id);
    expect((await s.forSend(t, b.id))?.status).toBe('canceled');
    await fx.redis.del(key);
    expect(await s.forSend(t, b.id)).toBeNull();
    expect(await s.forSend(t, 'nope')).toBeNull();
  });
});

describe("BroadcastsStore and MemoryBroadcasts: each transition accepts exactly its guard's statuses", () => {
  type Port = Pick<BroadcastsPort, 'create' | 'update' | 'schedule' | 'cancel' | 'remove' | 'resume'> &
    Pick<BroadcastsPort, 'startFanout' | 'finishFanout'> &
    Pick<BroadcastProtectionPort, 'pause'>;
  const guards = BROADCAST_MACHINE.guards;
  // each operation, the guard of core's table it must apply, and whether a call went through
  const operations: [
    string,
    readonly BroadcastStatus[],
    (p: Port, t: string, id: string) => Promise<boolean>,
  ][] = [
    ['update', guards.editable, async (p, t, id) => (await p.update(t, id, { name: 'x' })).ok],
    ['schedule', guards.schedulable, async (p, t, id) => (await p.schedule(t, id, Date.now())).ok],
    ['cancel', guards.cancellable, async (p, t, id) => (await p.cancel(t, id)).ok],
    ['remove', guards.deletable, async (p, t, id) => (await p.remove(t, id)).ok],
    ['startFanout', guards.startable, async (p, t, id) => (await p.startFanout(t, id, Date.now())).ok],
    ['finishFanout', guards.fanningOut, (p, t, id) => p.finishFanout(t, id, Date.now())],
    ['pause', guards.pausable, async (p, t, id) => (await p.pause(t, id, 'complaint rate')).ok],
    ['resume', guards.resumable, async (p, t, id) => (await p.resume(t, id)).ok],
  ];

  async function accepted(
    port: Port,
    setStatus: (teamId: string, id: string, status: BroadcastStatus) => Promise<void>,
  ): Promise<Record<string, BroadcastStatus[]>> {
    const out: Record<string, BroadcastStatus[]> = {};
    for (const [name, , run] of operations) {
      out[name] = [];
      for (const status of BROADCAST_MACHINE.statuses) {
        const t = nextTeam();
        const b = await port.create(t, content);
        await setStatus(t, b.id, status);
        if (await run(port, t, b.id)) out[name].push(status);
      }
    }
    return out;
  }

  const expected = Object.fromEntries(operations.map(([name, guard]) => [name, [...guard]]));

  it('the Redis store (its Lua guards)', async () => {
    const s = store();
    const got = await accepted(s, async (t, id, status) => {
      await fx.redis.hset(fx.keys.broadcast(t, id), 'status', status);
    });
    expect(got).toEqual(expected);
  });

  it('the in-memory port core’s unit tests use', async () => {
    const m = new MemoryBroadcasts(tickingClock());
    const got = await accepted(m, async (t, id, status) => m.setStatus(t, id, status));
    expect(got).toEqual(expected);
  });
});
