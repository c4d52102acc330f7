/**
 * Received (inbound) emails: the stored record behind `GET /emails/receiving/:id` and the
 * `email.received` webhook (Resend's received-email object).
 */

/** One check's result as RFC 8601 section 2.7 names it (`pass`, `fail`, `none`, `temperror`…). */
export type AuthResult = string;

/** One DKIM-Signature of a received email and its verification (RFC 6376). */
export interface DkimSignatureResult {
  result: AuthResult;
  /** `d=`: the signing domain. */
  domain: string;
  /** `s=`: the selector its key is published at. */
  selector: string;
  /** The signing domain is aligned with the From domain (relaxed, RFC 7489 section 3.1.1). */
  aligned: boolean;
}

/**
 * Who sent a received email, as the inbound server checked it (SPF, DKIM, DMARC, ARC, BIMI):
 * `authentication` on GET /emails/receiving/:id, a Petrel extension (Resend's object has no
 * such field; the same results are in the message's Authentication-Results header).
 */
export interface InboundAuthentication {
  spf: {
    result: AuthResult;
    /** The domain checked: MAIL FROM's, else the HELO name's (RFC 7208 section 2.4). */
    domain: string | null;
  };
  /** One entry per DKIM-Signature, in the message's order; empty when unsigned. */
  dkim: DkimSignatureResult[];
  dmarc: {
    result: AuthResult;
    /** The From domain the policy was looked up for (null: no single From address). */
    domain: string | null;
    /** The policy in force for that domain (`sp` for a subdomain when given), null without a record. */
    policy: 'none' | 'quarantine' | 'reject' | null;
    /** `pct` of the record (100 when absent), null without a record. */
    pct: number | null;
    /**
     * The domains that passed SPF / DKIM aligned with From (null: none). Filled in even without
     * a DMARC record, with relaxed alignment.
     */
    alignment: { spf: string | null; dkim: string | null };
  };
  /** ARC chain validation (RFC 8617 section 5.2): `none` without ARC sets. */
  arc: { result: AuthResult };
  bimi: {
    result: AuthResult;
    /** The `l=` logo URL of a passing BIMI record. */
    location: string | null;
  };
}

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
  /** The inbound server's checks; absent when it checked nothing (INBOUND_AUTH=off, older records). */
  authentication?: InboundAuthentication;
}
