/**
 * Per-recipient outcomes of an attempt the server accepted for some recipients and refused for
 * others. SMTP allows it: each RCPT TO gets its own reply and the message goes to the accepted
 * ones (RFC 5321 section 3.3); the mailer also leaves out, one by one, addresses the next hop
 * cannot take (a UTF-8 local part where SMTPUTF8 is not offered, RFC 6531). The email is
 * delivered, and its `email.delivered` event lists what became of every recipient, so the refused
 * ones and their reason reach the record (and GET /emails/:id) instead of being lost.
 */
import type { EmailEvent } from '@petrel/contracts';
import type { RejectedRecipient } from './ports.js';
import { mailboxKey } from '../kernel/mailbox.js';

/** A bounce as Resend's `email.bounced` event data carries it. */
export interface Bounce {
  type: 'Permanent' | 'Temporary';
  subType: string;
  message: string;
  /** RFC 3464 `Diagnostic-Code` values, `smtp; <reply>`; empty when no reply came. */
  diagnosticCode: string[];
}

/** What became of one recipient, the address as the email holds it. */
export type RecipientOutcome =
  | { email: string; status: 'delivered' }
  | { email: string; status: 'bounced'; bounce: Bounce }
  /** Not sent: on the team's suppression list (Resend's `email.suppressed` type). */
  | { email: string; status: 'suppressed'; suppressed: { message: string; type: 'OnAccountSuppressionList' } }
  /** Not sent: the topic rule or an unsubscribe refused it (Resend marks the email failed for it). */
  | { email: string; status: 'failed'; failed: { reason: string } };

/** The events whose data may list per-recipient outcomes: the terminal ones. */
const OUTCOME_EVENTS: ReadonlySet<string> = new Set(['email.delivered', 'email.bounced', 'email.failed']);

/** The key of the per-recipient list in `email.delivered` data and on the email's wire form. */
export const RECIPIENTS_KEY = 'recipients';

/**
 * The SMTP diagnostic as bounce reports carry it (RFC 3464 `Diagnostic-Code: smtp; …`): the
 * server's reply as it came, or, for a refusal made before any reply, the code it stands for.
 */
export function smtpDiagnostic(code: number, enhancedCode: string | undefined, detail: string): string {
  if (detail.startsWith(`${code} `) || detail.startsWith(`${code}-`)) return `smtp; ${detail}`;
  return `smtp; ${code}${enhancedCode !== undefined ? ` ${enhancedCode}` : ''} ${detail}`;
}

/**
 * The bounce of one refused recipient: Permanent for a 5xx. A 4xx for one recipient is reported
 * as a Temporary bounce: the others have the message, and sending it again to them to reach
 * this one would deliver it twice.
 */
function recipientBounce(r: RejectedRecipient): Bounce {
  return {
    type: r.permanent ? 'Permanent' : 'Temporary',
    subType: 'General',
    message: r.detail,
    diagnosticCode: r.code !== undefined ? [smtpDiagnostic(r.code, r.enhancedCode, r.detail)] : [],
  };
}

/**
 * Every recipient of the attempt in envelope order, each delivered or bounced with its refusal.
 * A refusal is matched to its recipient however the domain was spelled (A-labels on the wire);
 * one that matches none is listed as the mailer reported it.
 */
export function recipientOutcomes(
  recipients: readonly string[],
  rejected: readonly RejectedRecipient[],
): RecipientOutcome[] {
  const refusals = new Map<string, RejectedRecipient>();
  for (const r of rejected) {
    const key = mailboxKey(r.address);
    if (!refusals.has(key)) refusals.set(key, r);
  }
  const out: RecipientOutcome[] = recipients.map((email) => {
    const key = mailboxKey(email);
    const refusal = refusals.get(key);
    if (refusal === undefined) return { email, status: 'delivered' };
    refusals.delete(key);
    return { email, status: 'bounced', bounce: recipientBounce(refusal) };
  });
  for (const r of refusals.values()) {
    out.push({ email: r.address, status: 'bounced', bounce: recipientBounce(r) });
  }
  return out;
}

/**
 * The per-recipient outcomes recorded on an email's timeline: those of its latest terminal
 * event (delivered, bounced, failed), or undefined when every recipient got the message (or
 * nothing ended yet).
 */
export function recordedRecipientOutcomes(
  timeline: readonly Pick<EmailEvent, 'type' | 'data'>[],
): RecipientOutcome[] | undefined {
  for (let i = timeline.length - 1; i >= 0; i--) {
    const event = timeline[i]!;
    if (!OUTCOME_EVENTS.has(event.type)) continue;
    const list = event.data[RECIPIENTS_KEY];
    return Array.isArray(list) && list.length > 0 ? (list as RecipientOutcome[]) : undefined;
  }
  return undefined;
}

/**
 * The `email.suppressed` event data of each suppressed recipient (Resend's `suppressed` object,
 * with the address it is about), recorded when the email ends.
 */
export function droppedEvents(
  dropped: readonly RecipientOutcome[],
): { type: 'email.suppressed'; data: Record<string, unknown> }[] {
  return dropped.flatMap((d) =>
    d.status === 'suppressed'
      ? [{ type: 'email.suppressed' as const, data: { suppressed: { ...d.suppressed, email: d.email } } }]
      : [],
  );
}
