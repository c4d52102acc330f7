/**
 * How the outcome of a submission is answered over SMTP (RFC 5321 section 4.2 reply codes; the
 * SMTP server adds the RFC 3463 enhanced status code that goes with each). The client's fault is
 * permanent (5xx: sending the same message again cannot succeed); Petrel's trouble is temporary
 * (4xx: the client keeps the message and retries, RFC 5321 section 4.5.4.1), so an outage never
 * loses a message.
 */
import { PetrelError, type ErrorName } from '@petrel/contracts';

export interface SmtpReply {
  code: number;
  message: string;
}

const TEMPORARY = 'Temporary failure, try again later';

/** Refusals whose reply code is not the default one of their status. */
const CODE_BY_ERROR: Partial<Record<ErrorName, number>> = {
  // the first submission under this key is still being accepted: its outcome will decide
  concurrent_idempotent_requests: 451,
  // the team's limits (shared with the API): temporary, the client retries later (RFC 5321 4.5.4.1)
  rate_limit_exceeded: 451,
  daily_quota_exceeded: 451,
  payload_too_large: 552,
  invalid_from_address: 553,
};

/** Fields whose refusal is about an address (553: mailbox name not allowed). */
const ADDRESS_FIELD = /^(from|to|cc|bcc|reply_to)(\[\d+\])?: /;

/**
 * A 403 from acceptance is a sender the credential may not use (a domain-restricted key's
 * identity header, an unverified `from` domain): 550, RFC 3463's 5.7.1 "delivery not authorized,
 * message refused". An address field keeps its 553.
 */
const NOT_AUTHORIZED = 550;

/** The answer to an accepted submission: the email's id, so the client can find it (GET /emails/:id). */
export function acceptedReply(emailId: string, replayed: boolean): SmtpReply {
  const note = replayed ? ' (already accepted under this Resend-Idempotency-Key)' : '';
  return { code: 250, message: `OK ${emailId}${note}` };
}

/** The answer to a refused or failed submission. */
export function refusalReply(err: unknown): SmtpReply {
  if (!(err instanceof PetrelError) || err.statusCode >= 500) return { code: 451, message: TEMPORARY };
  const code =
    CODE_BY_ERROR[err.errorName] ??
    (ADDRESS_FIELD.test(err.message) ? 553 : err.statusCode === 403 ? NOT_AUTHORIZED : 554);
  return { code, message: err.message };
}

/** The answer to a message over the size limit (RFC 1870 section 6.2). */
export function tooLargeReply(maxBytes: number): SmtpReply {
  return { code: 552, message: `Message exceeds the size limit of ${maxBytes} bytes` };
}
