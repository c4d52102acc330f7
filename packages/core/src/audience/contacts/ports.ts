/**
 * The ports of the contact use-cases: the contacts themselves (ContactsStore), the property
 * definitions (ContactPropertiesStore) and the segments (SegmentsStore). Values of properties
 * travel keyed by property id (see property-values.ts).
 */
import type {
  ContactPropertyRecord,
  ContactPropertyValue,
  ContactRecord,
  SegmentRecord,
  Subscription,
} from '@petrel/contracts';

/** A new contact as it is stored: every optional field resolved. */
export interface NewContact {
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  /** Property id → value. */
  properties: Record<string, ContactPropertyValue>;
  segments: readonly string[];
  topics: readonly { id: string; subscription: Subscription }[];
}

/** A partial update: absent keeps, null clears a name; property id → value, null removes it. */
export interface ContactPatch {
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  properties?: Record<string, ContactPropertyValue | null>;
}

export type CreateContactResult =
  | { ok: true; id: string }
  | { ok: false; reason: 'email_taken' }
  | { ok: false; reason: 'no_segment' | 'no_topic'; index: number };

export type SetContactTopicsResult =
  | { ok: true; id: string }
  | { ok: false; reason: 'not_found' }
  | { ok: false; reason: 'no_topic'; index: number };

export interface ContactsPort {
  /** A contact by id or by email (matched as a mailbox). */
  get(teamId: string, idOrEmail: string): Promise<ContactRecord | null>;
  create(teamId: string, contact: NewContact): Promise<CreateContactResult>;
  /** Null when there is no such contact. Publishes contact.updated when something changed. */
  update(teamId: string, idOrEmail: string, patch: ContactPatch): Promise<{ id: string } | null>;
  /** Explicit topic choices; publishes contact.topics.updated with the choices that changed. */
  setTopics(
    teamId: string,
    idOrEmail: string,
    topics: readonly { id: string; subscription: Subscription }[],
  ): Promise<SetContactTopicsResult>;
}

export type NewContactProperty = Pick<ContactPropertyRecord, 'key' | 'type' | 'fallback_value'>;

export interface ContactPropertiesPort {
  /** Every property of the team (a team has few: a contact write checks against all of them). */
  all(teamId: string): Promise<ContactPropertyRecord[]>;
  get(teamId: string, id: string): Promise<ContactPropertyRecord | null>;
  create(
    teamId: string,
    property: NewContactProperty,
  ): Promise<{ ok: true; id: string } | { ok: false; reason: 'key_taken' }>;
  /** False when there is no such property. */
  setFallback(teamId: string, id: string, fallback: ContactPropertyValue | null): Promise<boolean>;
}

export interface SegmentsReader {
  get(teamId: string, id: string): Promise<SegmentRecord | null>;
}
