/**
 * In-memory send-time audience state (suppression list, contacts' unsubscribe and topic choices,
 * topics' defaults) implementing the RecipientStates and SuppressionsWriter ports, matched by
 * mailbox as the Redis stores match them; and unsubscribe links that are readable in assertions.
 */
import type { Subscription, SuppressionOrigin, SuppressionRecord } from '@petrel/contracts';
import {
  mailboxKey,
  type RecipientState,
  type RecipientStates,
  type SuppressionsWriter,
  type UnsubscribeLinks,
} from '@petrel/core';

export class MemoryAudienceState implements RecipientStates, SuppressionsWriter {
  readonly suppressions = new Map<string, SuppressionRecord>();
  /** mailbox → contact */
  private readonly contacts = new Map<string, { id: string; unsubscribed: boolean }>();
  private readonly topics = new Map<string, { default: Subscription; choices: Map<string, Subscription> }>();
  private n = 0;

  contact(email: string, opts: { unsubscribed?: boolean } = {}): this {
    this.contacts.set(mailboxKey(email), {
      id: `contact-${++this.n}`,
      unsubscribed: opts.unsubscribed ?? false,
    });
    return this;
  }

  topic(id: string, def: Subscription, choices: Record<string, Subscription> = {}): this {
    const map = new Map(Object.entries(choices).map(([e, s]) => [mailboxKey(e), s]));
    this.topics.set(id, { default: def, choices: map });
    return this;
  }

  suppress(email: string): this {
    void this.add('team', email, 'manual', null);
    return this;
  }

  async read(_teamId: string, addresses: readonly string[], topicId: string | null) {
    const topic = topicId === null ? undefined : this.topics.get(topicId);
    const states = addresses.map((address): RecipientState => {
      const key = mailboxKey(address);
      const c = this.contacts.get(key);
      return {
        suppressed: this.suppressions.has(key),
        contactId: c?.id ?? null,
        unsubscribed: c?.unsubscribed ?? false,
        subscription: topic?.choices.get(key) ?? null,
      };
    });
    return { topicDefault: topic?.default ?? null, states };
  }

  async add(_teamId: string, email: string, origin: SuppressionOrigin, sourceId: string | null) {
    const key = mailboxKey(email);
    const seen = this.suppressions.get(key);
    if (seen) return { record: seen, created: false };
    const record: SuppressionRecord = {
      id: `suppression-${++this.n}`,
      email,
      origin,
      source_id: sourceId,
      created_at: new Date(0).toISOString(),
    };
    this.suppressions.set(key, record);
    return { record, created: true };
  }
}

/** `https://petrel.test/unsubscribe/<recipient>/<topic|all>`: one per recipient, readable. */
export const readableUnsubscribeLinks: UnsubscribeLinks = {
  url: ({ recipient, topicId }) => `https://petrel.test/unsubscribe/${recipient}/${topicId ?? 'all'}`,
};
