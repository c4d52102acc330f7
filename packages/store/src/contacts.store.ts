/**
 * Contacts: one hash per contact (contacts.records.ts), a creation-time listing, the team's
 * mailbox → id index and set of unsubscribed mailboxes (both read at send time, so every write
 * here keeps them exact), each contact's set of segments (mirrored by the segments' member
 * listings) and its explicit topic choices (`topicSubscriptions`, keyed by mailbox).
 *
 * A contact is addressed by id or by email; an email is matched as its mailbox (`mailboxKey`),
 * and a team has at most one contact per mailbox, decided inside the create script. Every write
 * is one Lua script (contacts.scripts.ts) that also appends its contact.* event to the team's
 * events stream; writes that depend on what they read are optimistic on the contact's `rev`.
 * Imports (`upsertMany`) write a batch per script and publish nothing, as Resend's imports.
 */
import type { ContactRecord, SegmentRecord, Subscription } from '@petrel/contracts';
import {
  UUID_RE,
  contactEventData,
  mailboxKey,
  newId,
  type ContactPatch,
  type ContactsImporter,
  type ContactsPort,
  type CreateContactResult,
  type ImportBatchCounts,
  type ImportedContact,
  type NewContact,
  type Page,
  type PageRequest,
  type SetContactTopicsResult,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN, type Keys } from './keys.js';
import { pageIndex } from './page-index.js';
import type { RedisClient } from './redis.js';
import { defineScripts, execAll, pipeline, type StoreCommands } from './scripts.js';
import { applyFields, contactPairs, keysById, patchFields, toContact } from './contacts.records.js';
import { planImport, IMPORT_SCRIPT_ROWS } from './contacts.import.js';
import { toSegment } from './segments.store.js';
import { readHashes } from './hash-records.js';
import { teamEventJson } from './team-event-json.js';
import { ContactPropertiesStore } from './contact-properties.store.js';

/** The options of an import batch (ContactsImporter). */
type ImportOptions = Parameters<ContactsImporter['upsertMany']>[2];

/** Optimistic-concurrency retries before a write gives up (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;

/** A contact as read for a write: the record, its raw hash and its segments (live ones first). */
interface ReadContact {
  record: ContactRecord;
  raw: Record<string, string>;
  keyById: Map<string, string>;
  /** Every id in the contact's segment set, including segments deleted since (see SegmentsStore). */
  segmentIds: string[];
  liveSegments: SegmentRecord[];
}

export class ContactsStore implements ContactsPort, ContactsImporter {
  private readonly redis: RedisClient & StoreCommands;
  private readonly properties: ContactPropertiesStore;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly clock: { now(): number } = Date,
  ) {
    this.redis = defineScripts(redis);
    this.properties = new ContactPropertiesStore(redis, keys, clock);
  }

  /** The contact id for an id or an email (matched as a mailbox); null when there is none. */
  async resolveId(teamId: string, idOrEmail: string): Promise<string | null> {
    const s = idOrEmail.trim();
    if (s.includes('@')) return this.redis.hget(this.keys.contactByEmail(teamId), mailboxKey(s));
    return UUID_RE.test(s) ? s.toLowerCase() : null;
  }

  async get(teamId: string, idOrEmail: string): Promise<ContactRecord | null> {
    const id = await this.resolveId(teamId, idOrEmail);
    return id ? ((await this.read(teamId, id))?.record ?? null) : null;
  }

  /** Newest first; with `segmentId`, only that segment's members. Null for an unknown cursor. */
  async list(teamId: string, page: PageRequest, segmentId?: string): Promise<Page<ContactRecord> | null> {
    const index = segmentId ? this.keys.segmentMembers(teamId, segmentId) : this.keys.contacts(teamId);
    const found = await pageIndex(this.redis, index, page);
    if (!found) return null;
    const keys = found.ids.map((id) => this.keys.contact(teamId, id));
    const none = new Map<string, string>();
    const items = await readHashes(this.redis, 'ContactsStore.list', keys, (r) => toContact(r, none));
    return { items, hasMore: found.hasMore };
  }

  async create(teamId: string, input: NewContact): Promise<CreateContactResult> {
    // ids are UUIDs, matched in any case (the keys hold them in lower case)
    const c = {
      ...input,
      segments: input.segments.map((s) => s.toLowerCase()),
      topics: input.topics.map((t) => ({ id: idKey(t.id), subscription: t.subscription })),
    };
    const nowMs = this.clock.now();
    const iso = new Date(nowMs).toISOString();
    const id = newId(nowMs);
    const mailbox = mailboxKey(c.email);
    const record: ContactRecord = {
      id,
      email: c.email,
      first_name: c.first_name,
      last_name: c.last_name,
      unsubscribed: c.unsubscribed,
      properties: {},
      created_at: iso,
      updated_at: iso,
    };
    const fields = contactPairs({ ...record, mailbox, createdMs: nowMs }, c.properties);
    const event = teamEventJson('contact.created', teamId, contactEventData(record, c.segments), nowMs);
    const k = this.keys;
    const [status, detail] = await this.redis.petrelCreateContact(
      6 + 2 * c.segments.length + 2 * c.topics.length,
      ...this.contactKeys(teamId, id),
      ...c.segments.map((s) => k.segment(teamId, s)),
      ...c.segments.map((s) => k.segmentMembers(teamId, s)),
      ...c.topics.map((t) => k.topic(teamId, t.id)),
      ...c.topics.map((t) => k.topicSubscriptions(teamId, t.id)),
      id,
      mailbox,
      nowMs,
      c.unsubscribed ? '1' : '0',
      c.segments.length,
      c.topics.length,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      event,
      fields.length,
      ...fields,
      ...c.segments,
      ...c.topics.map((t) => t.subscription),
    );
    if (status === 'ok') return { ok: true, id };
    if (status === 'taken') return { ok: false, reason: 'email_taken' };
    return { ok: false, reason: status as 'no_segment' | 'no_topic', index: Number(detail) };
  }

  async update(teamId: string, idOrEmail: string, patch: ContactPatch): Promise<{ id: string } | null> {
    const id = await this.resolveId(teamId, idOrEmail);
    if (!id) return null;
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const cur = await this.read(teamId, id);
      if (!cur) return null;
      const { set, del } = patchFields(cur.raw, patch);
      if (set.length === 0 && del.length === 0) return { id };
      const nowMs = this.clock.now();
      set.push('updated_at', new Date(nowMs).toISOString());
      const next = toContact(applyFields(cur.raw, set, del), cur.keyById);
      const segmentIds = cur.liveSegments.map((s) => s.id);
      const event = teamEventJson('contact.updated', teamId, contactEventData(next, segmentIds), nowMs);
      const unsubscribed = patch.unsubscribed === undefined ? '' : patch.unsubscribed ? '1' : '0';
      const res = await this.redis.petrelUpdateContact(
        this.keys.contact(teamId, id),
        this.keys.unsubscribedContacts(teamId),
        this.keys.events(teamId),
        cur.raw.rev ?? '0',
        cur.raw.mailbox ?? mailboxKey(next.email),
        unsubscribed,
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        event,
        set.length,
        ...set,
        ...del,
      );
      if (res === 1) return { id };
      if (res === -1) return null;
    }
    throw new Error(`contact ${id}: too many concurrent updates`);
  }

  /** Deletes a contact with its memberships and topic choices; its id, or null when none. */
  async remove(teamId: string, idOrEmail: string): Promise<string | null> {
    const id = await this.resolveId(teamId, idOrEmail);
    if (!id) return null;
    const k = this.keys;
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const cur = await this.read(teamId, id);
      if (!cur) return null;
      const topicIds = await this.redis.zrevrange(k.topics(teamId), 0, -1);
      const segmentIds = cur.liveSegments.map((s) => s.id);
      const event = teamEventJson(
        'contact.deleted',
        teamId,
        contactEventData(cur.record, segmentIds),
        this.clock.now(),
      );
      const res = await this.redis.petrelDeleteContact(
        6 + cur.segmentIds.length + topicIds.length,
        ...this.contactKeys(teamId, id),
        ...cur.segmentIds.map((s) => k.segmentMembers(teamId, s)),
        ...topicIds.map((t) => k.topicSubscriptions(teamId, t)),
        id,
        cur.raw.mailbox ?? mailboxKey(cur.record.email),
        cur.raw.rev ?? '0',
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        event,
        cur.segmentIds.length,
      );
      if (res === 1) return id;
      if (res === -1) return null;
    }
    throw new Error(`contact ${id}: too many concurrent updates`);
  }

  async setTopics(
    teamId: string,
    idOrEmail: string,
    topics: readonly { id: string; subscription: Subscription }[],
  ): Promise<SetContactTopicsResult> {
    const id = await this.resolveId(teamId, idOrEmail);
    if (!id) return { ok: false, reason: 'not_found' };
    const bad = topics.findIndex((t) => !UUID_RE.test(t.id));
    if (bad >= 0) return { ok: false, reason: 'no_topic', index: bad };
    const k = this.keys;
    const wanted = topics.map((t) => ({ id: idKey(t.id), subscription: t.subscription }));
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const cur = await this.read(teamId, id);
      if (!cur) return { ok: false, reason: 'not_found' };
      const mailbox = cur.raw.mailbox ?? mailboxKey(cur.record.email);
      const before = await this.effectiveChoices(
        teamId,
        mailbox,
        wanted.map((t) => t.id),
      );
      const changed = wanted.filter((t, i) => before[i] !== t.subscription);
      const event =
        changed.length === 0
          ? ''
          : teamEventJson(
              'contact.topics.updated',
              teamId,
              { email: cur.record.email, topics: changed },
              this.clock.now(),
            );
      const [res, index] = await this.redis.petrelSetContactTopics(
        2 + 2 * wanted.length,
        k.contact(teamId, id),
        k.events(teamId),
        ...wanted.map((t) => k.topic(teamId, t.id)),
        ...wanted.map((t) => k.topicSubscriptions(teamId, t.id)),
        cur.raw.rev ?? '0',
        mailbox,
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        event,
        ...wanted.map((t) => t.subscription),
      );
      if (res === 1) return { ok: true, id };
      if (res === -1) return { ok: false, reason: 'not_found' };
      if (res === -2) return { ok: false, reason: 'no_topic', index: Number(index) };
    }
    throw new Error(`contact ${id}: too many concurrent updates`);
  }

  /** The explicit choices of `mailbox` for each topic (null where it made none). */
  async topicChoices(
    teamId: string,
    mailbox: string,
    topicIds: readonly string[],
  ): Promise<(Subscription | null)[]> {
    if (topicIds.length === 0) return [];
    const pipe = pipeline(this.redis, 'ContactsStore.topicChoices');
    for (const t of topicIds) pipe.hget(this.keys.topicSubscriptions(teamId, t), mailbox);
    return (await execAll(pipe)) as (Subscription | null)[];
  }

  /** Adds the contact to the segment (idempotent) or removes it. */
  async setSegment(
    teamId: string,
    idOrEmail: string,
    segmentId: string,
    op: 'add' | 'remove',
  ): Promise<'done' | 'not_member' | 'no_contact' | 'no_segment'> {
    const id = await this.resolveId(teamId, idOrEmail);
    if (!id) return 'no_contact';
    if (!UUID_RE.test(segmentId)) return 'no_segment';
    const seg = idKey(segmentId);
    const k = this.keys;
    const res = await this.redis.petrelSetContactSegment(
      k.contact(teamId, id),
      k.contactSegments(teamId, id),
      k.segment(teamId, seg),
      k.segmentMembers(teamId, seg),
      id,
      seg,
      op,
    );
    return res === 1 ? 'done' : res === 0 ? 'not_member' : res === -1 ? 'no_contact' : 'no_segment';
  }

  /** The segments of a contact, newest first; null when there is no such contact. */
  async segmentsOf(teamId: string, idOrEmail: string): Promise<SegmentRecord[] | null> {
    const id = await this.resolveId(teamId, idOrEmail);
    if (!id) return null;
    return (await this.read(teamId, id))?.liveSegments ?? null;
  }

  async upsertMany(
    teamId: string,
    rows: readonly ImportedContact[],
    options: ImportOptions,
  ): Promise<ImportBatchCounts> {
    const total: ImportBatchCounts = { created: 0, updated: 0, skipped: 0, failed: 0 };
    for (let i = 0; i < rows.length; i += IMPORT_SCRIPT_ROWS) {
      const counts = await this.upsertSlice(teamId, rows.slice(i, i + IMPORT_SCRIPT_ROWS), options);
      for (const key of Object.keys(total) as (keyof ImportBatchCounts)[]) total[key] += counts[key];
    }
    return total;
  }

  private async upsertSlice(
    teamId: string,
    rows: readonly ImportedContact[],
    options: ImportOptions,
  ): Promise<ImportBatchCounts> {
    const k = this.keys;
    const definitions = await this.properties.all(teamId);
    const segments = options.segments.filter((s) => UUID_RE.test(s)).map((s) => s.toLowerCase());
    const topics = options.topics.filter((t) => UUID_RE.test(t.id)).map((t) => ({ ...t, id: idKey(t.id) }));
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const plan = await planImport(rows, options.onConflict, definitions, this.clock.now(), (mailboxes) =>
        this.redis.hmget(k.contactByEmail(teamId), ...mailboxes),
      );
      if (plan.writes.length === 0) return plan.counts;
      const res = await this.redis.petrelUpsertContacts(
        3 + 2 * segments.length + 2 * topics.length + 2 * plan.writes.length,
        k.contacts(teamId),
        k.contactByEmail(teamId),
        k.unsubscribedContacts(teamId),
        ...segments.map((s) => k.segment(teamId, s)),
        ...segments.map((s) => k.segmentMembers(teamId, s)),
        ...topics.map((t) => k.topic(teamId, t.id)),
        ...topics.map((t) => k.topicSubscriptions(teamId, t.id)),
        ...plan.writes.flatMap((w) => [k.contact(teamId, w.id), k.contactSegments(teamId, w.id)]),
        segments.length,
        topics.length,
        ...segments,
        ...topics.map((t) => t.subscription),
        ...plan.writes.flatMap((w) => w.args),
      );
      if (res !== -1) return plan.counts;
    }
    throw new Error('contact import: too many concurrent writes to the same contacts');
  }

  /** Each topic's subscription for `mailbox`: the explicit choice, else the topic's default. */
  private async effectiveChoices(
    teamId: string,
    mailbox: string,
    topicIds: readonly string[],
  ): Promise<(string | null)[]> {
    const pipe = pipeline(this.redis, 'ContactsStore.effectiveChoices');
    for (const t of topicIds) {
      pipe.hget(this.keys.topicSubscriptions(teamId, t), mailbox);
      pipe.hget(this.keys.topic(teamId, t), 'default_subscription');
    }
    const r = (await execAll(pipe)) as (string | null)[];
    return topicIds.map((_, i) => r[2 * i] ?? r[2 * i + 1] ?? null);
  }

  /**
   * The first KEYS of the create and delete scripts: the contact, the listing, the mailbox
   * index, the unsubscribed set, the contact's segments, the events stream.
   */
  private contactKeys(teamId: string, id: string): string[] {
    const k = this.keys;
    return [
      k.contact(teamId, id),
      k.contacts(teamId),
      k.contactByEmail(teamId),
      k.unsubscribedContacts(teamId),
      k.contactSegments(teamId, id),
      k.events(teamId),
    ];
  }

  /** The contact, its raw hash (with `rev`, read first) and its segments. */
  private async read(teamId: string, id: string): Promise<ReadContact | null> {
    const k = this.keys;
    const pipe = pipeline(this.redis, 'ContactsStore.read');
    pipe.hgetall(k.contact(teamId, id));
    pipe.hgetall(k.contactPropertyKeys(teamId));
    pipe.smembers(k.contactSegments(teamId, id));
    const [raw, propertyKeys, segmentIds] = (await execAll(pipe)) as [
      Record<string, string>,
      Record<string, string>,
      string[],
    ];
    if (!raw.id) return null;
    const keyById = keysById(propertyKeys);
    const segments = segmentIds.map((s) => k.segment(teamId, s));
    const liveSegments = (await readHashes(this.redis, 'ContactsStore.read', segments, toSegment)).sort(
      (x, y) => (x.created_at < y.created_at ? 1 : x.created_at > y.created_at ? -1 : 0),
    );
    return { record: toContact(raw, keyById), raw, keyById, segmentIds, liveSegments };
  }
}
