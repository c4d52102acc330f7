/**
 * A broadcast's email as its recipient gets it: the broadcast's subject, html and text rendered
 * for the email's contact. The worker's render stage sends it and GET /emails/:id answers it, both
 * through {@link personalContent}, so the read cannot differ from the delivered message:
 *
 * - the contact's fields are the {@link ContactValues} the fan-out stored with the email, not the
 *   contact as it is when the email is sent or read (renamed, given a property, deleted since);
 * - the unsubscribe link is issued at the email's creation ({@link broadcastUnsubscribeUrl}): the
 *   token is an HMAC of the claims and that time, so every attempt and every read make the same
 *   link, the one `List-Unsubscribe` carries too.
 *
 * An email stored before the fan-out kept contact values (its content reads the contact, the
 * record holds none) is rendered with the contact as it is now, as it was then.
 */
import type { ContactPropertyDefinitions, ContactsReader, UnsubscribeLinks } from '../audience/ports.js';
import { bareAddress } from '../kernel/mailbox.js';
import type { BroadcastReader } from './ports.js';
import {
  contactValues,
  placeholderFields,
  placeholderNeeds,
  renderPersonal,
  type ContactValues,
  type PersonalSource,
} from './personalize.js';

/** What the render reads of the email record (a part of emails/record.ts's EmailToDeliver). */
export interface PersonalEmail {
  id: string;
  teamId: string;
  createdMs: number;
  contactId: string | null;
  contactValues?: ContactValues | null;
  content: { to: readonly string[] };
}

export interface PersonalContentPorts {
  unsubscribe: UnsubscribeLinks;
  /** Read only for a record without contact values whose content reads the contact. */
  contacts: ContactsReader;
  /** Read only then, and only when the content uses custom properties. */
  contactProperties: ContactPropertyDefinitions;
}

/** The email's one recipient, as the fan-out wrote it (the contact's address). */
export const broadcastRecipient = (email: PersonalEmail): string => bareAddress(email.content.to[0] ?? '');

/** The recipient's unsubscribe link of a broadcast's email: the same at every attempt and read. */
export function broadcastUnsubscribeUrl(
  email: PersonalEmail,
  recipient: string,
  topicId: string | null,
  links: UnsubscribeLinks,
): string {
  return links.url({
    teamId: email.teamId,
    emailId: email.id,
    recipient,
    topicId,
    issuedAtMs: email.createdMs,
  });
}

/** The broadcast's `source` personalised for the email's recipient (`topicId`: the broadcast's). */
export async function personalContent(
  email: PersonalEmail,
  source: PersonalSource,
  topicId: string | null,
  ports: PersonalContentPorts,
): Promise<PersonalSource> {
  const recipient = broadcastRecipient(email);
  const values = email.contactValues ?? (await valuesNow(email, source, ports));
  const url = broadcastUnsubscribeUrl(email, recipient, topicId, ports.unsubscribe);
  return renderPersonal(source, recipient, values, url);
}

/** A record without stored values: the contact's as they are now (none to read: null). */
async function valuesNow(
  email: PersonalEmail,
  source: PersonalSource,
  ports: PersonalContentPorts,
): Promise<ContactValues | null> {
  const sources = [source.subject, source.html, source.text];
  const needs = placeholderNeeds(sources);
  if (!needs.contact) return null;
  const [contact, defs] = await Promise.all([
    email.contactId ? ports.contacts.get(email.teamId, email.contactId) : null,
    needs.properties ? ports.contactProperties.all(email.teamId) : [],
  ]);
  return contactValues(placeholderFields(sources), contact, defs);
}

export interface BroadcastEmailReadPorts extends PersonalContentPorts {
  broadcasts: BroadcastReader;
}

/**
 * GET /emails/:id of a broadcast's email: the subject, html and text its recipient gets, from
 * the broadcast (its content never changes once it left draft) and the email's contact values;
 * null when the broadcast is gone (the record then shows what it holds).
 */
export async function broadcastEmailContent(
  email: PersonalEmail & { broadcastId: string },
  ports: BroadcastEmailReadPorts,
): Promise<PersonalSource | null> {
  const broadcast = await ports.broadcasts.forSend(email.teamId, email.broadcastId);
  if (!broadcast) return null;
  const { subject, html, text, topic_id } = broadcast.content;
  return personalContent(
    email,
    { subject, ...(html !== null && { html }), ...(text !== null && { text }) },
    topic_id,
    ports,
  );
}

/**
 * An email record with the content its recipient got: a broadcast's email stores no body, so it
 * is rendered from its broadcast (GET /emails/:id and a shared link show the same); any other
 * record, or one whose broadcast is gone, as it is.
 */
export async function emailAsSent<
  E extends PersonalEmail & { broadcastId: string | null; content: PersonalEmail['content'] },
>(record: E, ports: BroadcastEmailReadPorts): Promise<E> {
  if (record.broadcastId === null) return record;
  const personal = await broadcastEmailContent({ ...record, broadcastId: record.broadcastId }, ports);
  return personal ? { ...record, content: { ...record.content, ...personal } } : record;
}
