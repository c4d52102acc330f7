/**
 * Received (inbound) emails: the stored record behind `GET /emails/receiving/:id` and the
 * `email.received` webhook (Resend's received-email object).
 */

/** An attachment of a received email: metadata only; the content is read from the raw message. */
export interface InboundAttachment {
  id: string;
  filename: string | null;
  /** Decoded size in bytes. */
  size: number;
  content_type: string;
  /** Without angle brackets; null when the part has none. */
  content_id: string | null;
  content_disposition: 'inline' | 'attachment' | null;
}

export interface InboundEmailRecord {
  id: string;
  /** ISO 8601 time the message was accepted. */
  created_at: string;
  /** Bare address of the From header (the envelope sender when the header has none). */
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  /** Addresses of the `for` clauses of the Received headers (ours included): who it was delivered for. */
  received_for: string[];
  subject: string;
  /** The Message-ID header with its angle brackets ('' when the message had none). */
  message_id: string;
  html: string | null;
  text: string | null;
  /** Header fields by lower-case name; repeated fields joined with ", ". */
  headers: Record<string, string>;
  attachments: InboundAttachment[];
  /** Size of the raw message in bytes. */
  size: number;
}
