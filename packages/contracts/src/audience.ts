/**
 * Contacts, segments, topics, contact properties and suppressions as the Resend API names them
 * (https://resend.com/docs/api-reference/contacts, /topics, /segments, /contact-properties).
 * One definition of each wire value, shared by validation, the stores, the routes and the
 * delivery's recipient decisions.
 */

/** A topic's default and a contact's choice for it (wire spelling, underscore). */
export const SUBSCRIPTIONS = ['opt_in', 'opt_out'] as const;
export type Subscription = (typeof SUBSCRIPTIONS)[number];

/** Who can see a topic on the preference page: `private` only to contacts who opted in. */
export const TOPIC_VISIBILITIES = ['public', 'private'] as const;
export type TopicVisibility = (typeof TOPIC_VISIBILITIES)[number];

/** Why an address is on the suppression list. */
export const SUPPRESSION_ORIGINS = ['bounce', 'complaint', 'manual'] as const;
export type SuppressionOrigin = (typeof SUPPRESSION_ORIGINS)[number];

/** Types a contact property may have (the CSV import's column map also knows `boolean`). */
export const CONTACT_PROPERTY_TYPES = ['string', 'number'] as const;
export type ContactPropertyType = (typeof CONTACT_PROPERTY_TYPES)[number];

/** A property value as written (flat) on a contact. */
export type ContactPropertyValue = string | number;

/** A contact as stored (timestamps ISO 8601). The email never changes after creation. */
export interface ContactRecord {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  /** Flat `{ key: value }`; keys are defined contact properties. */
  properties: Record<string, ContactPropertyValue>;
  created_at: string;
  updated_at: string;
}

export interface SegmentRecord {
  id: string;
  name: string;
  created_at: string;
}

export interface TopicRecord {
  id: string;
  name: string;
  description: string | null;
  default_subscription: Subscription;
  visibility: TopicVisibility;
  created_at: string;
  updated_at: string;
}

export interface ContactPropertyRecord {
  id: string;
  key: string;
  type: ContactPropertyType;
  fallback_value: ContactPropertyValue | null;
  created_at: string;
}

export interface SuppressionRecord {
  id: string;
  email: string;
  origin: SuppressionOrigin;
  /** What put it there: the bounced email's id for `bounce`; null for `manual`. */
  source_id: string | null;
  created_at: string;
}

/** Contact import statuses and counts (GET /contacts/imports/:id). */
export const CONTACT_IMPORT_STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
export type ContactImportStatus = (typeof CONTACT_IMPORT_STATUSES)[number];
export interface ContactImportCounts {
  total: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

/** Limits of the audience resources (Resend's documented bounds). */
export const AUDIENCE_LIMITS = {
  topicName: 50,
  topicDescription: 200,
  propertyKey: 50,
  segmentName: 256,
  contactName: 256,
  propertyStringValue: 2_000,
  /** Addresses or ids in one suppressions batch call ("up to 100 at once", Resend's API reference). */
  suppressionBatch: 100,
} as const;
