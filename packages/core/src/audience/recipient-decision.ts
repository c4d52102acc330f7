/**
 * Who gets an email, decided per address (to, cc and bcc each on their own) from what the team
 * knows of it — the topic rule of Resend's send API (https://resend.com/docs/dashboard/topics:
 * an opted-in contact receives, an opted-out one does not and the email is marked failed for
 * it, a non-contact receives when the topic's default is opt-in), the contact's global
 * unsubscribe (it overrides any topic opt-in) and the suppression list (no mail at all).
 * Pure: the send path reads the states in one round trip and applies this to each address.
 */
import type { Subscription } from '@petrel/contracts';
import type { RecipientState } from './ports.js';

/** Why an address does not get the email. */
export type DropReason = 'suppressed' | 'unsubscribed' | 'opted_out' | 'not_opted_in' | 'topic_deleted';

export type RecipientVerdict = { send: true } | { send: false; reason: DropReason };

/** The email's topic as the send path sees it: absent (no topic_id), or its id and default. */
export interface TopicFacts {
  id: string;
  /** The topic's `default_subscription`; null when the topic was deleted after acceptance. */
  default: Subscription | null;
}

/** A human sentence per reason, for the recipient's outcome and `email.failed`. */
export const DROP_MESSAGES: Readonly<Record<DropReason, string>> = {
  suppressed: 'the address is on the suppression list',
  unsubscribed: 'the contact unsubscribed from list and topic emails',
  opted_out: 'the contact opted out of the topic',
  not_opted_in: 'not opted in to a topic whose default is opt_out',
  topic_deleted: 'the topic was deleted after the email was accepted',
};

/**
 * The verdict for one address. Suppression comes first: it applies to every email. A contact's
 * global unsubscribe refuses list mail (a broadcast, `listMail`) and topic mail. Without a topic
 * nothing else applies (Resend checks preferences only for topic sends); with one, the
 * contact's explicit choice decides, then the topic's default.
 */
export function decideRecipient(
  state: RecipientState,
  topic: TopicFacts | null,
  listMail = false,
): RecipientVerdict {
  if (state.suppressed) return { send: false, reason: 'suppressed' };
  const unsubscribed = state.contactId !== null && state.unsubscribed;
  if (!topic) return listMail && unsubscribed ? { send: false, reason: 'unsubscribed' } : { send: true };
  if (topic.default === null) return { send: false, reason: 'topic_deleted' };
  if (unsubscribed) return { send: false, reason: 'unsubscribed' };
  const choice = state.subscription ?? topic.default;
  if (choice === 'opt_in') return { send: true };
  return { send: false, reason: state.subscription === 'opt_out' ? 'opted_out' : 'not_opted_in' };
}
