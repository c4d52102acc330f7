/**
 * Acceptance stage: at most {@link DEFAULT_MAX_RECIPIENTS_PER_EMAIL} (MAX_RECIPIENTS_PER_EMAIL)
 * recipients per email, `to`, `cc` and `bcc` together. The spec bounds `to` alone (50, checked by
 * validation); without a total, one request could name tens of thousands of cc/bcc recipients and
 * turn into that many deliveries. The same number caps RCPT TO on SMTP submission, so an email
 * weighs the same whichever way it comes in. Every producer's emails pass here (a submitted
 * message, an automation step), not only the validated HTTP body.
 */
import { fieldPrefix, refuse, type AcceptStage } from './stage.js';

/**
 * Recipients of one email when MAX_RECIPIENTS_PER_EMAIL is unset: the RCPT TO cap of the SMTP
 * submission server, ten times what RFC 5321 section 4.5.3.1.8 asks a server to take (100).
 */
export const DEFAULT_MAX_RECIPIENTS_PER_EMAIL = 1_000;

/** Refuses an email whose to + cc + bcc exceed `max`, naming the field where the count passes it. */
export function capRecipients(max: number = DEFAULT_MAX_RECIPIENTS_PER_EMAIL): AcceptStage {
  return async (email, ctx) => {
    const total = email.to.length + email.cc.length + email.bcc.length;
    if (total <= max) return { email };
    const field = email.to.length > max ? 'to' : email.to.length + email.cc.length > max ? 'cc' : 'bcc';
    return refuse(
      `${fieldPrefix(ctx)}${field}: at most ${max} recipients per email in to, cc and bcc together (this email has ${total})`,
    );
  };
}
