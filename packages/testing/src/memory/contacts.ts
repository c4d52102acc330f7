/**
 * In-memory contacts and contact properties for unit tests of the contact use-cases
 * (ContactsPort, ContactPropertiesPort): one contact per mailbox per team, contacts by id or
 * email, values keyed by property id, unique property keys, and the known segment and topic ids
 * a create or a topic update checks (`segments`, `topics`: add ids to them).
 */
import type {
  ContactPropertyRecord,
  ContactPropertyValue,
  ContactRecord,
  Subscription,
} from '@petrel/contracts';
import {
  mailboxKey,
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

export class MemoryContacts implements ContactsPort {
  readonly contacts = new Map<string, StoredContact>();
  /** Segment ids that exist. */
  readonly segments = new Set<string>();
  /** Topic ids that exist. */
  readonly topics = new Set<string>();
  private seq = 0;

  constructor(private readonly properties?: MemoryContactProperties) {}

  find(teamId: string, idOrEmail: string): StoredContact | undefined {
    const byId = this.contacts.get(idOrEmail);
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
    const badSegment = contact.segments.findIndex((s) => !this.segments.has(s));
    if (badSegment >= 0) return Promise.resolve({ ok: false, reason: 'no_segment', index: badSegment });
    const badTopic = contact.topics.findIndex((t) => !this.topics.has(t.id));
    if (badTopic >= 0) return Promise.resolve({ ok: false, reason: 'no_topic', index: badTopic });
    const id = `contact-${++this.seq}`;
    const now = new Date().toISOString();
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
      segments: new Set(contact.segments),
      topics: new Map(contact.topics.map((t) => [t.id, t.subscription])),
    });
    return Promise.resolve({ ok: true, id });
  }

  update(teamId: string, idOrEmail: string, patch: ContactPatch): Promise<{ id: string } | null> {
    const c = this.find(teamId, idOrEmail);
    if (!c) return Promise.resolve(null);
    if (patch.first_name !== undefined) c.record.first_name = patch.first_name;
    if (patch.last_name !== undefined) c.record.last_name = patch.last_name;
    if (patch.unsubscribed !== undefined) c.record.unsubscribed = patch.unsubscribed;
    for (const [pid, value] of Object.entries(patch.properties ?? {})) {
      if (value === null) delete c.values[pid];
      else c.values[pid] = value;
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
    const bad = topics.findIndex((t) => !this.topics.has(t.id));
    if (bad >= 0) return Promise.resolve({ ok: false, reason: 'no_topic', index: bad });
    for (const t of topics) c.topics.set(t.id, t.subscription);
    return Promise.resolve({ ok: true, id: c.record.id });
  }
}

export class MemoryContactProperties implements ContactPropertiesPort {
  readonly properties = new Map<string, ContactPropertyRecord & { teamId: string }>();
  private seq = 0;

  all(teamId: string): Promise<ContactPropertyRecord[]> {
    return Promise.resolve([...this.properties.values()].filter((p) => p.teamId === teamId));
  }

  get(teamId: string, id: string): Promise<ContactPropertyRecord | null> {
    const p = this.properties.get(id);
    return Promise.resolve(p?.teamId === teamId ? p : null);
  }

  create(
    teamId: string,
    property: NewContactProperty,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'key_taken' }> {
    const taken = [...this.properties.values()].some((p) => p.teamId === teamId && p.key === property.key);
    if (taken) return Promise.resolve({ ok: false, reason: 'key_taken' });
    const id = `property-${++this.seq}`;
    this.properties.set(id, { ...property, id, teamId, created_at: new Date().toISOString() });
    return Promise.resolve({ ok: true, id });
  }

  setFallback(teamId: string, id: string, fallback: ContactPropertyValue | null): Promise<boolean> {
    const p = this.properties.get(id);
    if (p?.teamId !== teamId) return Promise.resolve(false);
    p.fallback_value = fallback;
    return Promise.resolve(true);
  }
}
