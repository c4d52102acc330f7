/**
 * What the send path reads about an email's recipients, in ONE round trip per attempt: a
 * pipeline over the team's indexes by mailbox (all under the team's hash tag, so one node of a
 * cluster answers it). Suppression list, contact by address, the set of unsubscribed contacts
 * and, for a topic email, the topic's default and the explicit choices made for it — every
 * writer of contacts, topics and suppressions keeps these indexes (keys.ts).
 */
import { mailboxKey, type RecipientState, type RecipientStates } from '@petrel/core';
import type { Subscription } from '@petrel/contracts';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { execAll, pipeline } from './scripts.js';

const asSubscription = (v: unknown): Subscription | null => (v === 'opt_in' || v === 'opt_out' ? v : null);

export class RecipientStatesStore implements RecipientStates {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
  ) {}

  async read(teamId: string, addresses: readonly string[], topicId: string | null) {
    if (addresses.length === 0) return { topicDefault: null, states: [] };
    const k = this.keys;
    const boxes = addresses.map(mailboxKey);
    const p = pipeline(this.redis, 'read recipient states')
      .hmget(k.suppressionByEmail(teamId), ...boxes)
      .hmget(k.contactByEmail(teamId), ...boxes)
      .smismember(k.unsubscribedContacts(teamId), ...boxes);
    if (topicId !== null) {
      p.hget(k.topic(teamId, topicId), 'default_subscription').hmget(
        k.topicSubscriptions(teamId, topicId),
        ...boxes,
      );
    }
    const [suppressed, contacts, unsubscribed, topicDefault, choices] = (await execAll(p)) as [
      (string | null)[],
      (string | null)[],
      number[],
      string | null | undefined,
      (string | null)[] | undefined,
    ];
    const states = boxes.map((_, i): RecipientState => ({
      suppressed: suppressed[i] !== null,
      contactId: contacts[i] ?? null,
      unsubscribed: unsubscribed[i] === 1,
      subscription: asSubscription(choices?.[i]),
    }));
    return { topicDefault: asSubscription(topicDefault), states };
  }
}
