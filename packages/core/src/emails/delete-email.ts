/**
 * Use-case: delete a sent email (DELETE /emails/:id, a Petrel extension: Resend's API has no
 * email deletion). It is how a team revokes what it shared of an email: the share page and the
 * attachment download links read the record on every view, so they stop working the moment it
 * is gone.
 *
 * Only an email whose SMTP transaction is over (the email machine's `deletable`: sent,
 * delivered, bounced, failed, canceled, …) can go: one still queued or being retried has a job
 * that would find no record halfway through. A scheduled email is canceled first, by the cancel
 * rule (cancel-email.ts), and then deleted. The store removes the record (its content and
 * attachments), its timeline and its entries in the listing and search indexes, atomically and
 * only while the status is still deletable; the metrics' counters stay (they are history).
 */
import { notFound, validationError } from '@petrel/contracts';
import { EMAIL_MACHINE, guardAllows } from '../transitions/index.js';
import { cancelEmail } from './cancel-email.js';
import type { EmailRecordsPort, ScheduledEmailPorts } from './ports.js';

export interface EmailDeleter {
  /** Removes the email if its status is deletable (checked atomically with the removal). */
  deleteFinished(teamId: string, emailId: string): Promise<'deleted' | 'not_deletable' | 'missing'>;
}

export interface DeleteEmailPorts extends ScheduledEmailPorts {
  emails: EmailRecordsPort & EmailDeleter;
}

export interface DeleteEmailCommand {
  teamId: string;
  emailId: string;
}

/** Resend's answer to a deletion, as for its other resources. */
export interface DeletedEmail {
  object: 'email';
  id: string;
  deleted: true;
}

export async function deleteEmail(cmd: DeleteEmailCommand, ports: DeleteEmailPorts): Promise<DeletedEmail> {
  const { teamId, emailId } = cmd;
  const rec = await ports.emails.get(teamId, emailId);
  if (!rec) throw notFound('Email');
  if (guardAllows(EMAIL_MACHINE.guards.cancellable, rec.status)) await cancelEmail(cmd, ports);
  const outcome = await ports.emails.deleteFinished(teamId, emailId);
  if (outcome === 'missing') throw notFound('Email');
  if (outcome === 'not_deletable') {
    const now = (await ports.emails.get(teamId, emailId))?.status ?? rec.status;
    throw validationError(
      `Only emails that are scheduled or done sending (${EMAIL_MACHINE.guards.deletable.join(', ')}) ` +
        `can be deleted; this email is ${now}: wait until it is sent`,
    );
  }
  return { object: 'email', id: emailId, deleted: true };
}
