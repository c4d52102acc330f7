import { describe, expect, it } from 'vitest';
import type { FanoutCursor } from '@petrel/core';
import { useStoreRedis } from './redis.fixture.js';
import { ContactsStore } from './contacts.store.js';
import { ContactPropertiesStore } from './contact-properties.store.js';
import { SegmentsStore } from './segments.store.js';
import { SegmentMembersStore } from './segment-members.pager.js';

const fx = useStoreRedis('segment-pager');
let seq = 0;
const team = (): string => `team-${++seq}`;

/** A clock that stays on one ms for `tie` readings, then moves: imports write a batch with one ms. */
function stepClock(tie: number) {
  let ms = Date.now();
  let n = 0;
  return { now: () => (n++ % tie === 0 ? ++ms : ms) };
}

async function segmentOf(t: string, count: number, clock = stepClock(1)) {
  const segment = await new SegmentsStore(fx.redis, fx.keys, clock).create(t, 'all');
  const contacts = new ContactsStore(fx.redis, fx.keys, clock);
  const rows = Array.from({ length: count }, (_, i) => ({
    email: `u${i}@example.test`,
    first_name: `U${i}`,
  }));
  await contacts.upsertMany(t, rows, { onConflict: 'upsert', segments: [segment.id], topics: [] });
  return { segmentId: segment.id, contacts };
}

async function all(pager: SegmentMembersStore, t: string, segmentId: string, limit: number) {
  const seen: string[] = [];
  const pages: number[] = [];
  let cursor: FanoutCursor | null = null;
  for (;;) {
    const { contacts } = await pager.page(t, segmentId, cursor, limit);
    pages.push(contacts.length);
    seen.push(...contacts.map((c) => c.email));
    if (contacts.length < limit) return { seen, pages };
    const last = contacts[contacts.length - 1]!;
    cursor = { score: last.score, contactId: last.id };
  }
}

describe('SegmentMembersStore', () => {
  it('pages a segment in creation order, every member once, ties of one ms included', async () => {
    const t = team();
    // upsertMany writes 500 rows per script with one ms: pages of 300 cut through the ties
    const { segmentId } = await segmentOf(t, 1_234);
    const pager = new SegmentMembersStore(fx.redis, fx.keys);
    const { seen, pages } = await all(pager, t, segmentId, 300);
    expect(pages).toEqual([300, 300, 300, 300, 34]);
    expect(new Set(seen).size).toBe(1_234);
  });

  it('returns whole contact records with their properties and scores', async () => {
    const t = team();
    const clock = stepClock(1);
    const props = new ContactPropertiesStore(fx.redis, fx.keys, clock);
    const created = await props.create(t, { key: 'company', type: 'string', fallback_value: null });
    expect(created.ok).toBe(true);
    const segment = await new SegmentsStore(fx.redis, fx.keys, clock).create(t, 's');
    await new ContactsStore(fx.redis, fx.keys, clock).upsertMany(
      t,
      [{ email: 'Ada@Example.test', first_name: 'Ada', properties: { company: 'Acme' } }],
      { onConflict: 'upsert', segments: [segment.id], topics: [] },
    );
    const { contacts } = await new SegmentMembersStore(fx.redis, fx.keys).page(t, segment.id, null, 10);
    expect(contacts).toHaveLength(1);
    expect(contacts[0]).toMatchObject({
      email: 'Ada@Example.test',
      first_name: 'Ada',
      properties: { company: 'Acme' },
      unsubscribed: false,
    });
    expect(contacts[0]!.score).toBeGreaterThan(1_600_000_000_000);
  });

  it('goes on after a cursor whose contact was deleted, and tops up pages over deleted contacts', async () => {
    const t = team();
    // one import batch: all 40 share one ms, so the cursor sits inside a tie
    const { segmentId, contacts } = await segmentOf(t, 40, stepClock(10));
    const pager = new SegmentMembersStore(fx.redis, fx.keys);
    const first = (await pager.page(t, segmentId, null, 15)).contacts;
    const last = first[14]!;
    // the cursor's contact goes, and three of the next page's
    await contacts.remove(t, last.id);
    const all40 = (await pager.page(t, segmentId, null, 100)).contacts;
    const next3 = all40.slice(14, 17);
    for (const c of next3) await contacts.remove(t, c.id);
    const rest = await pager.page(t, segmentId, { score: last.score, contactId: last.id }, 15);
    expect(rest.contacts).toHaveLength(15);
    const ids = new Set(rest.contacts.map((c) => c.id));
    for (const gone of [last, ...next3]) expect(ids.has(gone.id)).toBe(false);
    const tail = await pager.page(
      t,
      segmentId,
      { score: rest.contacts[14]!.score, contactId: rest.contacts[14]!.id },
      15,
    );
    // 40 − 15 (the first page, its deleted last one included) − 3 deleted = 22: 15 then 7
    expect(tail.contacts).toHaveLength(7);
  });

  it('an unknown or empty segment has no members', async () => {
    expect(
      (await new SegmentMembersStore(fx.redis, fx.keys).page(team(), 'nope', null, 10)).contacts,
    ).toEqual([]);
  });
});
