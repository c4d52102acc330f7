/**
 * An email's timeline: its first event (`email.queued` or `email.scheduled`) is a field of its
 * record, written with the record at acceptance, so that acceptance writes one key per email
 * instead of two; the later events are a list (`Keys.emailEvents`), which the first script that
 * appends one creates with the record's expiry (`petrelRecordEmailEvents`,
 * `petrelCancelScheduledEmail`). A record written before the field existed, and a broadcast's
 * email (`petrelCreateBroadcastEmails`), have no such field and their first event at the head of
 * the list instead.
 */
import type { EmailEvent } from '@petrel/contracts';

/** The record field holding the email's first event, as JSON (`petrelAcceptEmails` names it too). */
export const FIRST_EVENT_FIELD = 'first_event';

/**
 * The timeline, oldest first, from the record's {@link FIRST_EVENT_FIELD} (its value, if any)
 * and the list's entries: the same events, once each, in either layout.
 */
export function timelineOf<T = EmailEvent>(firstEvent: unknown, rows: readonly string[]): T[] {
  const events = rows.map((e) => JSON.parse(e) as T);
  if (typeof firstEvent === 'string') events.unshift(JSON.parse(firstEvent) as T);
  return events;
}
