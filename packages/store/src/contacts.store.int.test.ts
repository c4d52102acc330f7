import { describe, expect, it } from 'vitest';
import type { NewContact } from '@petrel/core';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { ContactsStore } from './contacts.store.js';
import { SegmentsStore } from './segments.store.js';
import { ContactPropertiesStore } from './contact-properties.store.js';
import { TopicsStore } from './topics.store.js';
import { newContact } from '@petrel/testing';

const fx = useStoreRedis('contacts');
// A clock that moves 1 ms per reading: records created within one millisecond would tie in
// their creation-time listings, whose order the tests check.
let ms = Date.now();
const clock = { now: () => ++ms };
const stores = () => ({
  contacts: new ContactsStore(fx.redis, fx.keys, clock),
  segments: new SegmentsStore(fx.redis, fx.keys, clock),
  properties: new ContactPropertiesStore(fx.redis, fx.keys, clock),
  topics: new TopicsStore(fx.redis, fx.keys, clock),
});

/** A new contact with a unique address (the contract's, so both write the same shape). */
const contact = newContact;

async function created(t: string, over: Partial<NewContact> = {}): Promise<string> {
  const res = await stores().contacts.create(t, contact(over));
  if (!res.ok) throw new Error(res.reason);
  return res.id;
}

async function topic(t: string, def: 'opt_in' | 'opt_out' = 'opt_in'): Promise<string> {
  const rec = await stores().topics.create(t, {
    name: 'News',
    description: null,
    default_subscription: def,
    visibility: 'public',
  });
  return rec.id;
}

describe('ContactsStore', () => {
  it('creates a contact, readable by id and by its email in any case; one contact per mailbox', async () => {
    const { contacts, properties } = stores();
    const t = nextTeam();
    const prop = await properties.create(t, { key: 'plan', type: 'string', fallback_value: null });
    if (!prop.ok) throw new Error('key taken');
    const id = await created(t, { email: 'Ada@Example.test', properties: { [prop.id]: 'pro' } });
    const byId = await contacts.get(t, id);
    expect(byId).toMatchObject({
      id,
      email: 'Ada@Example.test',
      first_name: 'Ada',
      last_name: null,
      unsubscribed: false,
      properties: { plan: 'pro' },
    });
    expect(await contacts.get(t, 'ada@example.TEST')).toEqual(byId);
    expect(await contacts.get(t, id.toUpperCase())).toEqual(byId);
    expect(await contacts.create(t, contact({ email: 'ADA@example.test' }))).toEqual({
      ok: false,
      reason: 'email_taken',
    });
    expect(await contacts.get(nextTeam(), id)).toBeNull();
    expect((await fx.events(t)).map((e) => e.type)).toEqual(['contact.created']);
    expect((await fx.events(t))[0]?.data).toMatchObject({ id, email: 'Ada@Example.test', segment_ids: [] });
  });

  it('refuses an unknown segment or topic by index and writes nothing', async () => {
    const { contacts, segments } = stores();
    const t = nextTeam();
    const seg = await segments.create(t, 'VIP');
    const missing = '01890000-0000-7000-8000-000000000000';
    const c = contact({ segments: [seg.id, missing] });
    expect(await contacts.create(t, c)).toEqual({ ok: false, reason: 'no_segment', index: 1 });
    expect(
      await contacts.create(
        t,
        contact({ email: c.email, topics: [{ id: missing, subscription: 'opt_in' }] }),
      ),
    ).toEqual({
      ok: false,
      reason: 'no_topic',
      index: 0,
    });
    expect(await contacts.get(t, c.email)).toBeNull();
    expect(await fx.redis.zcard(fx.keys.segmentMembers(t, seg.id))).toBe(0);
    expect(await fx.events(t)).toEqual([]);
  });

  it('keeps the unsubscribed set exact on create, update and delete', async () => {
    const { contacts } = stores();
    const t = nextTeam();
    const id = await created(t, { email: 'u@x.test', unsubscribed: true });
    const set = fx.keys.unsubscribedContacts(t);
    expect(await fx.redis.smembers(set)).toEqual(['u@x.test']);
    await contacts.update(t, id, { unsubscribed: false });
    expect(await fx.redis.smembers(set)).toEqual([]);
    await contacts.update(t, 'U@X.test', { unsubscribed: true });
    expect(await fx.redis.smembers(set)).toEqual(['u@x.test']);
    expect(await contacts.remove(t, id)).toBe(id);
    expect(await fx.redis.smembers(set)).toEqual([]);
    expect(await fx.redis.hlen(fx.keys.contactByEmail(t))).toBe(0);
    expect((await fx.events(t)).map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.updated',
      'contact.deleted',
    ]);
    expect(await contacts.remove(t, id)).toBeNull();
  });

  it('updates: null clears a name and removes a property; a patch that changes nothing publishes nothing', async () => {
    const { contacts, properties } = stores();
    const t = nextTeam();
    const p = await properties.create(t, { key: 'age', type: 'number', fallback_value: null });
    if (!p.ok) throw new Error('taken');
    const id = await created(t, { last_name: 'Lovelace', properties: { [p.id]: 36 } });
    expect(
      await contacts.update(t, id, { first_name: 'Augusta', last_name: null, properties: { [p.id]: null } }),
    ).toEqual({
      id,
    });
    expect(await contacts.get(t, id)).toMatchObject({
      first_name: 'Augusta',
      last_name: null,
      properties: {},
    });
    await contacts.update(t, id, { first_name: 'Augusta', properties: { [p.id]: null } });
    const evs = await fx.events(t);
    expect(evs.map((e) => e.type)).toEqual(['contact.created', 'contact.updated']);
    expect(evs[1]?.data).toMatchObject({ id, first_name: 'Augusta', last_name: null });
    expect(await contacts.update(t, 'nobody@x.test', { first_name: 'x' })).toBeNull();
  });

  it('hides the values of a deleted property; a new property with its key starts empty', async () => {
    const { contacts, properties } = stores();
    const t = nextTeam();
    const p = await properties.create(t, { key: 'plan', type: 'string', fallback_value: 'free' });
    if (!p.ok) throw new Error('taken');
    expect(await properties.create(t, { key: 'plan', type: 'number', fallback_value: null })).toEqual({
      ok: false,
      reason: 'key_taken',
    });
    const id = await created(t, { properties: { [p.id]: 'pro' } });
    expect(await properties.remove(t, p.id)).toBe(true);
    expect((await contacts.get(t, id))?.properties).toEqual({});
    const again = await properties.create(t, { key: 'plan', type: 'number', fallback_value: 1 });
    expect(again.ok).toBe(true);
    expect((await contacts.get(t, id))?.properties).toEqual({});
    expect(await properties.all(t)).toEqual([
      expect.objectContaining({ key: 'plan', type: 'number', fallback_value: 1 }),
    ]);
  });

  it('adds to and removes from segments; lists members and a contact segments; a deleted segment drops out', async () => {
    const { contacts, segments } = stores();
    const t = nextTeam();
    const a = await segments.create(t, 'A');
    const b = await segments.create(t, 'B');
    const id = await created(t, { segments: [a.id] });
    const other = await created(t);
    expect(await contacts.setSegment(t, id, b.id, 'add')).toBe('done');
    expect(await contacts.setSegment(t, id, b.id, 'add')).toBe('done');
    expect(await contacts.setSegment(t, other, b.id, 'add')).toBe('done');
    expect((await contacts.segmentsOf(t, id))?.map((s) => s.id)).toEqual([b.id, a.id]);
    expect((await contacts.list(t, { limit: 10 }, b.id))?.items.map((c) => c.id)).toEqual([other, id]);
    expect(await contacts.setSegment(t, id, a.id, 'remove')).toBe('done');
    expect(await contacts.setSegment(t, id, a.id, 'remove')).toBe('not_member');
    expect(await contacts.setSegment(t, 'nobody@x.test', a.id, 'add')).toBe('no_contact');
    expect(await contacts.setSegment(t, id, '01890000-0000-7000-8000-000000000000', 'add')).toBe(
      'no_segment',
    );
    expect(await segments.remove(t, b.id)).toBe(true);
    expect(await contacts.segmentsOf(t, id)).toEqual([]);
    expect(await contacts.setSegment(t, id, b.id, 'add')).toBe('no_segment');
    await contacts.update(t, id, { first_name: 'Z' });
    expect((await fx.events(t)).at(-1)?.data).toMatchObject({ segment_ids: [], audience_id: null });
  });

  it('sets topic choices: unknown topic refused, event lists only changed choices', async () => {
    const { contacts } = stores();
    const t = nextTeam();
    const news = await topic(t, 'opt_in');
    const promos = await topic(t, 'opt_out');
    const id = await created(t, { email: 'topics@x.test' });
    expect(
      await contacts.setTopics(t, id, [
        { id: news, subscription: 'opt_in' },
        { id: '01890000-0000-7000-8000-000000000000', subscription: 'opt_in' },
      ]),
    ).toEqual({ ok: false, reason: 'no_topic', index: 1 });
    expect(
      await contacts.setTopics(t, 'Topics@x.test', [
        { id: news, subscription: 'opt_in' },
        { id: promos, subscription: 'opt_in' },
      ]),
    ).toEqual({ ok: true, id });
    expect(await contacts.topicChoices(t, 'topics@x.test', [news, promos])).toEqual(['opt_in', 'opt_in']);
    await contacts.setTopics(t, id, [{ id: promos, subscription: 'opt_in' }]);
    const evs = (await fx.events(t)).filter((e) => e.type === 'contact.topics.updated');
    expect(evs.map((e) => e.data)).toEqual([
      { email: 'topics@x.test', topics: [{ id: promos, subscription: 'opt_in' }] },
    ]);
    expect(await contacts.setTopics(t, 'nobody@x.test', [])).toEqual({ ok: false, reason: 'not_found' });
    await contacts.remove(t, id);
    expect(await fx.redis.hlen(fx.keys.topicSubscriptions(t, news))).toBe(0);
    expect(await fx.redis.hlen(fx.keys.topicSubscriptions(t, promos))).toBe(0);
  });

  it('lists newest first with cursors; without a known cursor null', async () => {
    const { contacts } = stores();
    const t = nextTeam();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await created(t));
    const first = await contacts.list(t, { limit: 2 });
    expect(first?.items.map((c) => c.id)).toEqual([ids[2], ids[1]]);
    expect(first?.hasMore).toBe(true);
    expect((await contacts.list(t, { limit: 2, after: ids[1]! }))?.items.map((c) => c.id)).toEqual([ids[0]]);
    expect(await contacts.list(t, { limit: 2, after: '01890000-0000-7000-8000-000000000000' })).toBeNull();
  });
});

describe('ContactsStore.upsertMany (imports)', () => {
  it('creates, updates or skips; applies segments and topics; keeps the indexes exact; publishes nothing', async () => {
    const { contacts, segments, properties } = stores();
    const t = nextTeam();
    const seg = await segments.create(t, 'Imported');
    const news = await topic(t, 'opt_out');
    const p = await properties.create(t, { key: 'score', type: 'number', fallback_value: null });
    if (!p.ok) throw new Error('taken');
    const existing = await created(t, { email: 'old@x.test', first_name: 'Old' });
    const before = (await fx.events(t)).length;
    const counts = await contacts.upsertMany(
      t,
      [
        { email: 'new@x.test', first_name: 'New', unsubscribed: true, properties: { score: 3 } },
        { email: 'OLD@x.test', first_name: 'Renamed' },
        { email: 'not an address' },
        { email: 'bad@x.test', properties: { score: 'high' } },
        { email: 'new@X.test', last_name: 'Later' },
      ],
      { onConflict: 'upsert', segments: [seg.id], topics: [{ id: news, subscription: 'opt_in' }] },
    );
    expect(counts).toEqual({ created: 1, updated: 2, skipped: 0, failed: 2 });
    const fresh = await contacts.get(t, 'new@x.test');
    expect(fresh).toMatchObject({
      first_name: 'New',
      last_name: 'Later',
      unsubscribed: true,
      properties: { score: 3 },
    });
    expect(await contacts.get(t, existing)).toMatchObject({ first_name: 'Renamed' });
    expect(await fx.redis.smembers(fx.keys.unsubscribedContacts(t))).toEqual(['new@x.test']);
    expect((await contacts.list(t, { limit: 10 }, seg.id))?.items.map((c) => c.email).sort()).toEqual([
      'new@x.test',
      'old@x.test',
    ]);
    expect(await contacts.topicChoices(t, 'old@x.test', [news])).toEqual(['opt_in']);
    expect((await contacts.segmentsOf(t, existing))?.map((s) => s.id)).toEqual([seg.id]);
    expect((await fx.events(t)).length).toBe(before);

    const again = await contacts.upsertMany(
      t,
      [{ email: 'old@x.test', first_name: 'Skipped' }, { email: 'third@x.test' }],
      {
        onConflict: 'skip',
        segments: [],
        topics: [],
      },
    );
    expect(again).toEqual({ created: 1, updated: 0, skipped: 1, failed: 0 });
    expect(await contacts.get(t, existing)).toMatchObject({ first_name: 'Renamed' });
    expect(await fx.redis.hlen(fx.keys.contactByEmail(t))).toBe(3);
    expect(await fx.redis.zcard(fx.keys.contacts(t))).toBe(3);
  });

  it('is idempotent on replay and writes a large batch in slices', async () => {
    const { contacts } = stores();
    const t = nextTeam();
    const rows = Array.from({ length: 1_200 }, (_, i) => ({
      email: `bulk-${i}@x.test`,
      unsubscribed: i % 2 === 0,
    }));
    const opts = { onConflict: 'upsert' as const, segments: [], topics: [] };
    expect(await contacts.upsertMany(t, rows, opts)).toEqual({
      created: 1_200,
      updated: 0,
      skipped: 0,
      failed: 0,
    });
    expect(await contacts.upsertMany(t, rows, opts)).toEqual({
      created: 0,
      updated: 1_200,
      skipped: 0,
      failed: 0,
    });
    expect(await fx.redis.zcard(fx.keys.contacts(t))).toBe(1_200);
    expect(await fx.redis.scard(fx.keys.unsubscribedContacts(t))).toBe(600);
  });
});
