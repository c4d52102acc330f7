/**
 * The ports of the audience use-cases (contacts, segments, topics, contact properties,
 * suppressions, imports) and of the send-time recipient decisions. Declared here so core imports
 * no Redis code; packages/store implements them (ContactsStore, TopicsStore, SuppressionsStore,
 * RecipientStatesStore), packages/testing has in-memory versions.
 *
 * Addresses are matched as `mailboxKey` (kernel/mailbox.ts): case folded, an IDN domain as
 * A-labels. A team has at most one contact per mailbox, and one suppression per mailbox.
 */
import type {
  ContactImportCounts,
  ContactPropertyRecord,
  ContactPropertyValue,
  ContactRecord,
  Subscription,
  SuppressionOrigin,
  SuppressionRecord,
  TeamEvent,
  TopicRecord,
} from '@petrel/contracts';

// ---------------------------------------------------------------------------------------------
// Topics (TopicsStore)

/** What the contacts side and the send path read of topics. */
export interface TopicsReader {
  get(teamId: string, topicId: string): Promise<TopicRecord | null>;
  /** Every topic of the team, newest first (a team has few: the preference page lists them all). */
  all(teamId: string): Promise<TopicRecord[]>;
}

// ---------------------------------------------------------------------------------------------
// Contacts (ContactsStore): the import's write path

/** One contact of an import, already validated and typed by the column map. */
export interface ImportedContact {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  properties?: Record<string, ContactPropertyValue>;
}

export type ImportConflict = 'upsert' | 'skip';

/** What a batch of imported rows did: counts add up to the batch size. */
export type ImportBatchCounts = Omit<ContactImportCounts, 'total'>;

export interface ContactsImporter {
  /**
   * Writes a batch of rows (one round trip per batch, one slot: the team's): a new mailbox is
   * created, an existing one updated (`upsert`) or left alone (`skip`). Every row is added to
   * `segments` and given `topics`. Imports publish no contact events (as Resend's).
   * Idempotent: replaying a batch after a crash gives the same contacts (counts may then say
   * `updated` where the first run said `created`).
   */
  upsertMany(
    teamId: string,
    rows: readonly ImportedContact[],
    options: {
      onConflict: ImportConflict;
      segments: readonly string[];
      topics: readonly { id: string; subscription: Subscription }[];
    },
  ): Promise<ImportBatchCounts>;
}

// ---------------------------------------------------------------------------------------------
// Suppressions (SuppressionsStore): what the sending pipeline adds

export interface SuppressionsWriter {
  /**
   * Adds `email` to the team's suppression list unless it is there already (then the existing
   * entry stands and is returned). Publishes `suppression.added` for a new entry.
   */
  add(
    teamId: string,
    email: string,
    origin: SuppressionOrigin,
    sourceId: string | null,
  ): Promise<{ record: SuppressionRecord; created: boolean }>;
}

// ---------------------------------------------------------------------------------------------
// Send time (RecipientStatesStore): one round trip per email

/** What the send path knows of one recipient address. */
export interface RecipientState {
  /** On the team's suppression list: receives no mail at all. */
  suppressed: boolean;
  /** The contact with this mailbox, if any. */
  contactId: string | null;
  /** The contact's global unsubscribe: receives no topic mail. */
  unsubscribed: boolean;
  /** The contact's explicit choice for the email's topic; null when none (or no topic). */
  subscription: Subscription | null;
}

export interface RecipientStates {
  /**
   * The state of each address (same order) and, when `topicId` is given, the topic's default
   * (null when the topic no longer exists). Addresses are bare; matched as mailboxes.
   */
  read(
    teamId: string,
    addresses: readonly string[],
    topicId: string | null,
  ): Promise<{ topicDefault: Subscription | null; states: RecipientState[] }>;
}

// ---------------------------------------------------------------------------------------------
// Events

/** Publishes a non-email event on the team's events stream (for the webhook dispatcher). */
export interface TeamEventPublisher {
  publish(event: TeamEvent): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// What a send reads of the audience: unsubscribe links, the contact and its property definitions

/**
 * The links a recipient uses to leave a list (RFC 2369 `List-Unsubscribe`, RFC 8058 one-click):
 * a signed per-recipient URL under the service's public address.
 */
export interface UnsubscribeLinks {
  /**
   * `issuedAtMs`: when the link's validity starts (default now). A broadcast's email passes its
   * creation time, so its link is the same at every attempt and when GET /emails/:id renders it.
   */
  url(claims: {
    teamId: string;
    emailId: string;
    recipient: string;
    topicId: string | null;
    issuedAtMs?: number;
  }): string;
}

/** The contact a broadcast's email is personalised for, read at send time (ContactsStore). */
export interface ContactsReader {
  /** Null once the contact is deleted: the placeholders then render their fallbacks. */
  get(teamId: string, contactId: string): Promise<ContactRecord | null>;
}

/** The team's contact property definitions, for their fallback values (ContactPropertiesStore). */
export interface ContactPropertyDefinitions {
  all(teamId: string): Promise<ContactPropertyRecord[]>;
}
