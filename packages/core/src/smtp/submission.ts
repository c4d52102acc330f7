/**
 * SMTP submission (RFC 6409) → the body of a send request. A message submitted over SMTP is
 * turned into exactly what a client would POST to /emails, and then goes through the same
 * use-case (acceptEmails) — same validation, limits, topic and suppression rules, records, jobs
 * and events. Pure: the SMTP server parses the MIME message (into {@link SubmittedMessage}) and
 * hands over the envelope; this decides what the email is.
 *
 * - Recipients: the envelope (RCPT TO) decides who gets the message, as for any MTA (RFC 5321
 *   section 3.3: the envelope, not the headers, routes mail). To and Cc keep the header's
 *   addresses that are envelope recipients; every other envelope recipient is a Bcc (that is
 *   what a Bcc is: on the envelope, not in the headers). A To/Cc address that is not an
 *   envelope recipient is not sent to, so it is left out of the email.
 * - Headers: custom headers pass through, except those Petrel writes itself (OWNED_HEADERS),
 *   the trace and transport headers an earlier hop wrote (they describe another transaction,
 *   RFC 5321 section 4.4) and the MIME structure headers (the message is rebuilt). The
 *   `Resend-Idempotency-Key` header is taken out and becomes the request's Idempotency-Key.
 * - Content: subject, html, text and attachments (base64, with the content id of inline parts)
 *   as parsed; Reply-To as written.
 */
import { OWNED_HEADERS, validationError, type SendEmailRequest } from '@petrel/contracts';
import { mailboxKey } from '../kernel/mailbox.js';

/** One mailbox of a parsed address header; `name` is `''` when there is none. */
export interface SubmittedMailbox {
  name: string;
  address: string;
}

/** A parsed address header entry: a mailbox or a group of mailboxes (RFC 5322 section 3.4). */
export type SubmittedAddress = SubmittedMailbox | { name: string; group: SubmittedMailbox[] };

export interface SubmittedAttachment {
  filename: string | null;
  mimeType: string;
  disposition: string | null;
  /** With or without angle brackets, as the Content-ID header wrote it. */
  contentId?: string | undefined;
  /** Whether the part sits in a multipart/related (an inline image the html refers to). */
  related?: boolean | undefined;
  /** Base64 content. */
  content: string;
}

/** A MIME message as the parser gives it (a structural subset of postal-mime's `Email`). */
export interface SubmittedMessage {
  /** Every header field in order: `key` lower case, `originalKey` as written, `value` unfolded. */
  headers: { key: string; originalKey?: string; value: string }[];
  from?: SubmittedAddress | undefined;
  to?: SubmittedAddress[] | undefined;
  cc?: SubmittedAddress[] | undefined;
  replyTo?: SubmittedAddress[] | undefined;
  subject?: string | undefined;
  html?: string | undefined;
  text?: string | undefined;
  attachments: SubmittedAttachment[];
}

/** The SMTP envelope of the transaction: the RCPT TO addresses, in order. */
export interface SubmissionEnvelope {
  rcptTo: string[];
}

export interface SubmissionRequest {
  body: SendEmailRequest;
  /** From the `Resend-Idempotency-Key` header: the HTTP Idempotency-Key's semantics. */
  idempotencyKey: string | undefined;
}

/** The header that carries the Idempotency-Key over SMTP (Resend's name for it). */
export const SUBMISSION_IDEMPOTENCY_HEADER = 'resend-idempotency-key';

/**
 * Headers a submission never passes on: written by hops and verifiers (trace, signatures,
 * authentication results: they would be false once Petrel re-sends), the envelope's echoes, and
 * the MIME structure of the submitted message, which the mailer rebuilds.
 */
export const SUBMISSION_DROPPED_HEADERS: ReadonlySet<string> = new Set([
  'received',
  'return-path',
  'delivered-to',
  'x-original-to',
  'envelope-to',
  'dkim-signature',
  'domainkey-signature',
  'arc-seal',
  'arc-message-signature',
  'arc-authentication-results',
  'authentication-results',
  'received-spf',
  'x-received',
  'content-disposition',
  'content-id',
  'content-description',
  'content-length',
  SUBMISSION_IDEMPOTENCY_HEADER,
]);

/** The send request a submitted message stands for. Throws a validation error it cannot be one. */
export function submissionRequest(
  message: SubmittedMessage,
  envelope: SubmissionEnvelope,
): SubmissionRequest {
  const recipients = envelopeRecipients(envelope.rcptTo);
  const claimed = new Set<string>();
  const visible = (list: SubmittedAddress[] | undefined): string[] =>
    mailboxes(list).flatMap((m) => {
      const key = mailboxKey(m.address);
      if (!recipients.has(key) || claimed.has(key)) return [];
      claimed.add(key);
      return [formatMailbox(m)];
    });
  const to = visible(message.to);
  const cc = visible(message.cc);
  const bcc = [...recipients].filter(([key]) => !claimed.has(key)).map(([, address]) => address);
  if (to.length === 0) {
    throw validationError(
      'to: no address of the To header is an envelope recipient (RCPT TO); at least one must be',
    );
  }

  const { headers, idempotencyKey } = passedHeaders(message.headers);
  const from = mailboxes(message.from ? [message.from] : [])[0];
  // A From header that names no mailbox goes to validation as written, to be refused by name.
  const fromText = from ? formatMailbox(from) : message.headers.find((h) => h.key === 'from')?.value;
  const replyTo = mailboxes(message.replyTo).map(formatMailbox);
  const body: SendEmailRequest = {
    ...(fromText !== undefined && { from: fromText }),
    to,
    ...(cc.length > 0 && { cc }),
    ...(bcc.length > 0 && { bcc }),
    ...(replyTo.length > 0 && { reply_to: replyTo }),
    ...(message.subject !== undefined && { subject: message.subject }),
    ...(message.html !== undefined && { html: message.html }),
    ...(message.text !== undefined && { text: message.text }),
    ...(Object.keys(headers).length > 0 && { headers }),
    ...(message.attachments.length > 0 && { attachments: message.attachments.map(toAttachment) }),
  };
  return { body, idempotencyKey };
}

/** RCPT TO addresses by mailbox key, first spelling kept, in order. */
function envelopeRecipients(rcptTo: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const address of rcptTo) {
    const key = mailboxKey(address);
    if (!out.has(key)) out.set(key, address);
  }
  return out;
}

/** The mailboxes of an address list, groups flattened (an empty group names nobody). */
function mailboxes(list: SubmittedAddress[] | undefined): SubmittedMailbox[] {
  return (list ?? []).flatMap((a) => ('group' in a ? a.group : [a])).filter((m) => m.address !== '');
}

/** Characters that make a display name need double quotes (RFC 5322 specials, section 3.2.3). */
const NEEDS_QUOTES = /[()<>[\]:;@\\,."]/;

/** `Name <address>` (quoted when needed) or the bare address: the forms the API accepts. */
export function formatMailbox(m: SubmittedMailbox): string {
  const name = m.name.trim();
  if (name === '') return m.address;
  const shown = NEEDS_QUOTES.test(name) ? `"${name.replace(/[\\"]/g, (c) => `\\${c}`)}"` : name;
  return `${shown} <${m.address}>`;
}

/** The custom headers to pass on (first occurrence of a name wins) and the Idempotency-Key. */
function passedHeaders(fields: SubmittedMessage['headers']): {
  headers: Record<string, string>;
  idempotencyKey: string | undefined;
} {
  const headers: Record<string, string> = Object.create(null) as Record<string, string>;
  const seen = new Set<string>();
  let idempotencyKey: string | undefined;
  for (const field of fields) {
    const key = field.key.toLowerCase();
    if (key === SUBMISSION_IDEMPOTENCY_HEADER) idempotencyKey ??= field.value.trim();
    if (OWNED_HEADERS.has(key) || SUBMISSION_DROPPED_HEADERS.has(key) || seen.has(key)) continue;
    seen.add(key);
    headers[field.originalKey ?? field.key] = field.value;
  }
  return { headers, idempotencyKey };
}

function toAttachment(a: SubmittedAttachment): NonNullable<SendEmailRequest['attachments']>[number] {
  const cid = a.contentId?.replace(/^<|>$/g, '').trim();
  const inline = a.disposition === 'inline' || a.related === true;
  return {
    content: a.content,
    ...(a.filename !== null && a.filename !== '' && { filename: a.filename }),
    ...(a.mimeType !== '' && { content_type: a.mimeType }),
    ...(inline && cid && { content_id: cid }),
  };
}
