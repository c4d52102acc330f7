/**
 * What a recipient can do with the unsubscribe link of an email (List-Unsubscribe, RFC 2369 and
 * RFC 8058): a one-click POST leaves the email's topic (or, for an email without one, every list
 * email: the contact's `unsubscribed`), at once and without a page; the link opened in a browser
 * shows the recipient's choices, which change only when the form is submitted (RFC 8058 section
 * 3.2: a GET must never unsubscribe, link scanners fetch them). The token is the only
 * credential: it names the team and the address (unsubscribe-token.ts).
 *
 * A recipient who is not a contact yet becomes one, so that the choice is kept where the team
 * sees and manages it (GET /contacts/:email/topics) and the send path finds it. Every write goes
 * through the contacts port, which publishes contact.created / contact.updated /
 * contact.topics.updated. Repeating a request changes nothing more.
 *
 * Leaving (one-click, or a saved page that turns a topic off or leaves everything) is also the
 * email's `email.unsubscribed`, recorded on its timeline and counted where its other events are
 * (GET /emails/metrics `unsubscribed`, the broadcast's `unsubscribed` recipients), once per
 * email: the store drops a repeat. It is timeline-only: Resend's webhooks have no such type.
 */
import type { EmailEvent, Subscription, TopicRecord } from '@petrel/contracts';
import { PetrelError } from '@petrel/contracts';
import { emailEventData } from '../emails/email-event.js';
import type { EmailToDeliver } from '../emails/record.js';
import type { Clock } from '../kernel/clock.js';
import type { IdSource } from '../kernel/ids.js';
import type { ContactsPort } from './contacts/ports.js';
import type { RecipientStates, TopicsReader } from './ports.js';
import { verifyUnsubscribeToken, type UnsubscribeClaims } from './unsubscribe-token.js';

export interface UnsubscribePorts {
  contacts: Pick<ContactsPort, 'get' | 'create' | 'update' | 'setTopics'>;
  topics: TopicsReader;
  recipients: RecipientStates;
  emails: {
    /** The record; null once it expired (retention) or never existed. */
    get(teamId: string, emailId: string): Promise<EmailToDeliver | null>;
    /** Records and counts `event` unless the email already has an unsubscribe ('repeat'). */
    recordUnsubscribe(
      teamId: string,
      emailId: string,
      event: EmailEvent,
    ): Promise<'recorded' | 'repeat' | 'missing'>;
  };
  secret: string;
  clock: Clock;
  ids: IdSource;
}

/** A checked token's claims, or a 4xx that says why not (never which part was wrong). */
export function checkToken(
  token: string,
  ports: Pick<UnsubscribePorts, 'secret' | 'clock'>,
): UnsubscribeClaims {
  const check = verifyUnsubscribeToken(token, ports.secret, ports.clock.now());
  if (check.ok) return check.claims;
  throw new PetrelError(
    'validation_error',
    check.reason === 'expired'
      ? 'token: this unsubscribe link has expired'
      : 'token: this unsubscribe link is not valid',
  );
}

/** One topic as the preference page shows it. */
export interface TopicChoice {
  topic: Pick<TopicRecord, 'id' | 'name' | 'description'>;
  subscribed: boolean;
}

export interface Preferences {
  claims: UnsubscribeClaims;
  /** The contact's global unsubscribe. */
  unsubscribed: boolean;
  /**
   * The topics the recipient may see: public ones, and private ones they are subscribed to
   * (Resend's `visibility`: a private topic shows only to contacts who opted in).
   */
  topics: TopicChoice[];
}

async function choicesOf(teamId: string, recipient: string, ports: UnsubscribePorts) {
  const topics = await ports.topics.all(teamId);
  const read = await Promise.all(topics.map((t) => ports.recipients.read(teamId, [recipient], t.id)));
  return topics.map((t, i) => {
    const state = read[i]!.states[0]!;
    const choice: Subscription = state.subscription ?? t.default_subscription;
    return { topic: t, subscribed: choice === 'opt_in' };
  });
}

/** The preference page's content. Reads only. */
export async function readPreferences(token: string, ports: UnsubscribePorts): Promise<Preferences> {
  const claims = checkToken(token, ports);
  const choices = await choicesOf(claims.teamId, claims.recipient, ports);
  const contact = await ports.contacts.get(claims.teamId, claims.recipient);
  return {
    claims,
    unsubscribed: contact?.unsubscribed ?? false,
    topics: choices
      .filter((c) => c.topic.visibility === 'public' || c.subscribed || c.topic.id === claims.topicId)
      .map(({ topic, subscribed }) => ({
        topic: { id: topic.id, name: topic.name, description: topic.description },
        subscribed,
      })),
  };
}

/** Makes sure the recipient is a contact; true when one was created with `initial`. */
async function ensureContact(
  teamId: string,
  email: string,
  initial: { unsubscribed: boolean; topics: { id: string; subscription: Subscription }[] },
  ports: UnsubscribePorts,
): Promise<boolean> {
  if (await ports.contacts.get(teamId, email)) return false;
  const res = await ports.contacts.create(teamId, {
    email,
    first_name: null,
    last_name: null,
    unsubscribed: initial.unsubscribed,
    properties: {},
    segments: [],
    topics: initial.topics,
  });
  // created meanwhile by another click: go on as for an existing contact
  return res.ok;
}

async function setTopics(
  teamId: string,
  email: string,
  topics: { id: string; subscription: Subscription }[],
  ports: UnsubscribePorts,
): Promise<void> {
  if (topics.length === 0) return;
  if (await ensureContact(teamId, email, { unsubscribed: false, topics }, ports)) return;
  const res = await ports.contacts.setTopics(teamId, email, topics);
  // a topic deleted since the email was sent has no choice left to record
  if (!res.ok && res.reason === 'no_topic') {
    const left = topics.filter((_, i) => i !== res.index);
    await setTopics(teamId, email, left, ports);
  }
}

async function unsubscribeAll(teamId: string, email: string, ports: UnsubscribePorts): Promise<void> {
  if (await ensureContact(teamId, email, { unsubscribed: true, topics: [] }, ports)) return;
  await ports.contacts.update(teamId, email, { unsubscribed: true });
}

/** The email's `email.unsubscribed`, with the data its other events carry (its broadcast's among them). */
async function recordUnsubscribe(
  claims: UnsubscribeClaims,
  ports: UnsubscribePorts,
): Promise<'recorded' | 'repeat' | 'missing'> {
  const email = await ports.emails.get(claims.teamId, claims.emailId);
  if (email === null) return 'missing'; // expired: the choice is kept, there is no email to count on
  return ports.emails.recordUnsubscribe(claims.teamId, claims.emailId, {
    id: ports.ids.newEventId(),
    type: 'email.unsubscribed',
    created_at: new Date(ports.clock.now()).toISOString(),
    teamId: claims.teamId,
    data: emailEventData(email),
  });
}

/** RFC 8058 one-click: out of the email's topic, or out of everything for an email without one. */
export async function oneClickUnsubscribe(
  token: string,
  ports: UnsubscribePorts,
): Promise<UnsubscribeClaims> {
  const claims = checkToken(token, ports);
  if (claims.topicId !== null) {
    await setTopics(
      claims.teamId,
      claims.recipient,
      [{ id: claims.topicId, subscription: 'opt_out' }],
      ports,
    );
  } else {
    await unsubscribeAll(claims.teamId, claims.recipient, ports);
  }
  await recordUnsubscribe(claims, ports);
  return claims;
}

/**
 * The submitted preference form: the subscribed topic ids among those the page showed, and
 * whether to leave everything. Topics the page did not show are left as they are.
 */
export async function savePreferences(
  token: string,
  form: { subscribed: readonly string[]; unsubscribeAll: boolean },
  ports: UnsubscribePorts,
): Promise<Preferences> {
  const shown = await readPreferences(token, ports);
  const { teamId, recipient } = shown.claims;
  const wanted = new Set(form.subscribed);
  const changes = shown.topics
    .filter((c) => c.subscribed !== wanted.has(c.topic.id))
    .map((c) => ({
      id: c.topic.id,
      subscription: (wanted.has(c.topic.id) ? 'opt_in' : 'opt_out') as Subscription,
    }));
  await setTopics(teamId, recipient, changes, ports);
  if (form.unsubscribeAll && !shown.unsubscribed) await unsubscribeAll(teamId, recipient, ports);
  if (!form.unsubscribeAll && shown.unsubscribed) {
    await ports.contacts.update(teamId, recipient, { unsubscribed: false });
  }
  const left =
    (form.unsubscribeAll && !shown.unsubscribed) || changes.some((c) => c.subscription === 'opt_out');
  if (left) await recordUnsubscribe(shown.claims, ports);
  return readPreferences(token, ports);
}
