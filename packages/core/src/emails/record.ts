/**
 * An email's record as the stages after acceptance read and write it: delivery, tracking,
 * inbound reports and the watchdog. The Redis EmailsStore implements the writers.
 */
import type { AttachmentInput, EmailContent, EmailEvent, EmailStatus } from '@petrel/contracts';
import type { ContactValues } from './contact-values.js';

/** The parts of an email record the delivery reads. */
export interface EmailToDeliver {
  id: string;
  teamId: string;
  /** ISO 8601 acceptance time. */
  createdAt: string;
  createdMs: number;
  status: EmailStatus;
  /** The Message-ID fixed at acceptance, `<id@domain>`. */
  messageId: string;
  content: Omit<EmailContent, 'attachments'>;
  /** SMTP attempts recorded so far. */
  attempts: number;
  /** Set when the email is sent from a template: the id and the version pinned at acceptance. */
  template: { id: string; versionId: string } | null;
  broadcastId: string | null;
  /** A broadcast's email: its contact, whose fields personalise the content at send time. */
  contactId: string | null;
  /**
   * A broadcast's email: what its placeholders read of the contact at the fan-out (absent: none
   * stored — no contact placeholders, or a record from before they were stored).
   */
  contactValues?: ContactValues | null;
}

/** An event to append to an email's timeline, with the status it moves the email to. */
export interface StatusEvent {
  status: EmailStatus;
  event: EmailEvent;
}

/**
 * What else an attempt's outcome changes, written in the same atomic step as its events (the
 * team's slot, one round trip): a delivery's per-email work stays one write.
 */
export interface RecordedWithEvents {
  /** Addresses whose soft-bounce streak the outcome ends (deliver/soft-bounces.ts). */
  endSoftBounceStreaks?: readonly string[];
}

/**
 * Writes to an email record. Appending an event also publishes it for the webhook dispatcher,
 * and moves the status only forward (a late write never undoes a later state).
 */
export interface EmailRecordWriter {
  /** Append `items` in order, set `fields`, and carry out `also` with them. */
  recordEvents(
    teamId: string,
    emailId: string,
    items: StatusEvent[],
    fields?: Record<string, string>,
    also?: RecordedWithEvents,
  ): Promise<unknown>;
  /** Set plain fields, no event. */
  setFields(teamId: string, emailId: string, fields: Record<string, string>): Promise<unknown>;
}

export interface EmailRecordStore extends EmailRecordWriter {
  /** The record and its attachments; null when it expired or was deleted. */
  getForSend(
    teamId: string,
    emailId: string,
  ): Promise<{ record: EmailToDeliver; attachments: AttachmentInput[] } | null>;
}
