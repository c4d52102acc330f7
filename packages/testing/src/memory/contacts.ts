/**
 * In-memory contacts and contact properties for unit tests of the contact use-cases
 * (ContactsPort, ContactPropertiesPort): one contact per mailbox per team, contacts by id or
 * email, values keyed by property id, unique property keys, and the segment and topic ids of
 * each team a create or a topic update checks (`addSegment`, `addTopic`). Ids are UUIDv7 from the
 * clock and match in any case, as the Redis store's (packages/testing/src/contracts holds both
 * to one contract).
 */
import type {
  ContactPropertyRecord,
  ContactPropertyValue,
  ContactRecord,
  Subscription,
} from '@petrel/contracts';
import {
  mailboxKey,
  newId,
  type ContactPatch,
  type ContactPropertiesPort,
  type ContactsPort,
  type CreateContactResult,
  type NewContact,
  type NewContactProperty,
  type SetContactTopicsResult,
} from '@petrel/core';

interface StoredContact {
  teamId: string;
  record: Omit<ContactRecord, 'properties'>;
  /** Property id → value. */
  values: Record<string, ContactPropertyValue>;
  segments: Set<string>;
  topics: Map<string, Subscription>;
}

/** Ids by team, lower-cased (segment and topic ids match in any case, as the store's). */
class TeamIds {
  private readonly ids = new Map<string, Set<string>>();

  add(teamId: string, id: string): void {
    const ids = this.ids.get(teamId) ?? new Set<string>();
    this.ids.set(teamId, ids.add(id.toLowerCase()));
  }

  has(teamId: string, id: string): boolean {
    return this.ids.get(teamId)?.has(id.toLowerCase()) === true;
  }
}

export class MemoryContacts implements ContactsPort {
  /** Contacts by id (lower case). */
  readonly contacts = new Map<string, StoredContact>();
  private readonly segments = new TeamIds();
  private readonly topics = new TeamIds();

  constructor(
    private readonly properties?: MemoryContactProperties,
    private readonly clock: { now(): number } = Date,
  ) {}

  /** A segment of `teamId` that exists, for a create's `segments` to name. */
  addSegment(teamId: string, segmentId: string): this {
    this.segments.add(teamId, segmentId);
    return this;
  }

  /** A topic of `teamId` that exists, for a create's or setTopics' `topics` to name. */
  addTopic(teamId: string, topicId: string): this {
    this.topics.add(teamId, topicId);
    return this;
  }

  find(teamId: string, idOrEmail: string): StoredContact | undefined {
    const byId = this.contacts.get(idOrEmail.toLowerCase());
    if (byId?.teamId === teamId) return byId;
    const mailbox = mailboxKey(idOrEmail);
    return [...this.contacts.values()].find(
      (c) => c.teamId === teamId && mailboxKey(c.record.email) === mailbox,
    );
  }

  get(teamId: string, idOrEmail: string): Promise<ContactRecord | null> {
    const c = this.find(teamId, idOrEmail);
    if (!c) return Promise.resolve(null);
    const properties: Record<string, ContactPropertyValue> = {};
    for (const [pid, value] of Object.entries(c.values)) {
      const key = this.properties?.properties.get(pid)?.key ?? pid;
      properties[key] = value;
    }
    return Promise.resolve({ ...c.record, properties });
  }

  create(teamId: string, contact: NewContact): Promise<CreateContactResult> {
    if (this.find(teamId, contact.email)) return Promise.resolve({ ok: false, reason: 'email_taken' });
    const badSegment = contact.segments.findIndex((s) => !this.segments.has(teamId, s));
    if (badSegment >= 0) return Promise.resolve({ ok: false, reason: 'no_segment', index: badSegment });
    const badTopic = contact.topics.findIndex((t) => !this.topics.has(teamId, t.id));
    if (badTopic >= 0) return Promise.resolve({ ok: false, reason: 'no_topic', index: badTopic });
    const nowMs = this.clock.now();
    const id = newId(nowMs);
    const now = new Date(nowMs).toISOString();
    this.contacts.set(id, {
      teamId,
      record: {
        id,
        email: contact.email,
        first_name: contact.first_name,
        last_name: contact.last_name,
        unsubscribed: contact.unsubscribed,
        created_at: now,
        updated_at: now,
      },
      values: { ...contact.properties },
      segments: new Set(contact.segments.map((s) => s.toLowerCase())),
      topics: new Map(contact.topics.map((t) => [t.id.toLowerCase(), t.subscription])),
    });
    return Promise.resolve({ ok: true, id });
  }

  update(teamId: string, idOrEmail: string, patch: ContactPatch): Promise<{ id: string } | null> {
    const c = this.find(teamId, idOrEmail);
    if (!c) return Promise.resolve(null);
    const before = JSON.stringify([c.record, c.values]);
    if (patch.first_name !== undefined) c.record.first_name = patch.first_name;
    if (patch.last_name !== undefined) c.record.last_name = patch.last_name;
    if (patch.unsubscribed !== undefined) c.record.unsubscribed = patch.unsubscribed;
    for (const [pid, value] of Object.entries(patch.properties ?? {})) {
      if (value === null) delete c.values[pid];
      else c.values[pid] = value;
    }
    // as the store: a patch that changes something moves updated_at, one that does not leaves it
    if (JSON.stringify([c.record, c.values]) !== before) {
      c.record.updated_at = new Date(this.clock.now()).toISOString();
    }
    return Promise.resolve({ id: c.record.id });
  }

  setTopics(
    teamId: string,
    idOrEmail: string,
    topics: readonly { id: string; subscription: Subscription }[],
  ): Promise<SetContactTopicsResult> {
    const c = this.find(teamId, idOrEmail);
    if (!c) return Promise.resolve({ ok: false, reason: 'not_found' });
    const bad = topics.findIndex((t) => !this.topics.has(teamId, t.id));
    if (bad >= 0) return Promise.resolve({ ok: false, reason: 'no_topic', index: bad });
    for (const t of topics) c.topics.set(t.id.toLowerCase(), t.subscription);
    return Promise.resolve({ ok: true, id: c.record.id });
  }
}

/** A stored property as the port hands it out: a copy, without the team. */
function propertyRecord({ teamId: _team, ...record }: ContactPropertyRecord & { teamId: string }) {
  return structuredClone(record);
}

export class MemoryContactProperties implements ContactPropertiesPort {
  /** Properties by id (lower case), oldest first. */
  readonly properties = new Map<string, ContactPropertyRecord & { teamId: string }>();

  constructor(private readonly clock: { now(): number } = Date) {}

  /** Newest first, as the store's index. */
  all(teamId: string): Promise<ContactPropertyRecord[]> {
    const mine = [...this.properties.values()].filter((p) => p.teamId === teamId);
    return Promise.resolve(mine.reverse().map(propertyRecord));
  }

  get(teamId: string, id: string): Promise<ContactPropertyRecord | null> {
    const p = this.properties.get(id.toLowerCase());
    return Promise.resolve(p?.teamId === teamId ? propertyRecord(p) : null);
  }

  create(
    teamId: string,
    property: NewContactProperty,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'key_taken' }> {
    const taken = [...this.properties.values()].some((p) => p.teamId === teamId && p.key === property.key);
    if (taken) return Promise.resolve({ ok: false, reason: 'key_taken' });
    const nowMs = this.clock.now();
    const id = newId(nowMs);
    this.properties.set(id, { ...property, id, teamId, created_at: new Date(nowMs).toISOString() });
    return Promise.resolve({ ok: true, id });
  }

  setFallback(teamId: string, id: string, fallback: ContactPropertyValue | null): Promise<boolean> {
    const p = this.properties.get(id.toLowerCase());
    if (p?.teamId !== teamId) return Promise.resolve(false);
    p.fallback_value = fallback;
    return Promise.resolve(true);
  }
}
