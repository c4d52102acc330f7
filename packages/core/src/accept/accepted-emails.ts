/**
 * The last pure stage of acceptance: ids, initial status and timeline event of each accepted
 * email, and the response body (Resend's `{ id }` or `{ data, errors? }`).
 *
 * With an Idempotency-Key an email's id derives from (team, key, endpoint, index) and the claim's
 * start, so a retry after a crash between commit and response recomputes the same ids; the id is
 * also the job id and part of the Message-ID, so nothing downstream can make it a second email.
 */
import { domainToASCII } from 'node:url';
import { deterministicEmailId, newEmailId } from '../kernel/ids.js';
import type { AcceptError, AcceptedEmail, Endpoint, PreparedEmail } from './ports.js';

/**
 * `<id@domain-of-from>`: stable across retries, so downstream can dedupe (RFC 5322 3.6.4). An
 * internationalised domain is stored as A-labels (RFC 5890), the form the Message-ID header is
 * written in (a msg-id is ASCII outside RFC 6532), so the stored id equals the header.
 */
export function messageIdFor(emailId: string, from: string): string {
  const at = from.lastIndexOf('@');
  const domain =
    at >= 0
      ? from
          .slice(at + 1)
          .replace(/>.*$/, '')
          .trim()
          .toLowerCase()
      : '';
  const ascii = /[^\x00-\x7f]/.test(domain) ? domainToASCII(domain) : domain;
  return `<${emailId}@${ascii || 'petrel.local'}>`;
}

export interface EmailIdInputs {
  teamId: string;
  endpoint: Endpoint;
  idempotencyKey: string | undefined;
  /** When the key was first claimed (ids of a retry keep the first attempt's timestamp). */
  claimMs: number | undefined;
  /** The acceptance instant, epoch ms. */
  nowMs: number;
}

function emailId(src: EmailIdInputs, index: number): string {
  return src.idempotencyKey !== undefined
    ? deterministicEmailId(src.teamId, src.idempotencyKey, src.endpoint, index, src.claimMs ?? src.nowMs)
    : newEmailId(src.nowMs);
}

/**
 * The prepared emails of a request as they will be recorded. Their events share one timestamp,
 * the acceptance instant, formatted once per request rather than once per email.
 */
export function toAcceptedEmails(src: EmailIdInputs, prepared: readonly PreparedEmail[]): AcceptedEmail[] {
  const createdAt = new Date(src.nowMs).toISOString();
  return prepared.map((email) => toAcceptedEmail(src, createdAt, email));
}

/** A prepared email as it will be recorded: queued now, or scheduled with the delay until due. */
function toAcceptedEmail(src: EmailIdInputs, createdAt: string, prepared: PreparedEmail): AcceptedEmail {
  const { index, email, template } = prepared;
  const id = emailId(src, index);
  const { nowMs } = src;
  const scheduledMs = email.scheduled_at ? Date.parse(email.scheduled_at) : 0;
  const scheduled = scheduledMs > nowMs;
  return {
    index,
    id,
    content: email,
    status: scheduled ? 'scheduled' : 'queued',
    delayMs: scheduled ? scheduledMs - nowMs : 0,
    messageId: messageIdFor(id, email.from),
    ...(template ? { template } : {}),
    event: {
      id: newEmailId(nowMs),
      type: scheduled ? 'email.scheduled' : 'email.queued',
      created_at: createdAt,
      teamId: src.teamId,
      data: { email_id: id, ...(scheduled ? { scheduled_at: email.scheduled_at } : {}) },
    },
  };
}

/**
 * The response body: `{ id }` for a single send; `{ data }` for a batch, plus the refused emails
 * as `errors` in permissive mode, as Resend answers.
 */
export function responseBody(
  endpoint: Endpoint,
  mode: 'strict' | 'permissive',
  accepted: readonly AcceptedEmail[],
  errors: readonly AcceptError[],
): string {
  if (endpoint === 'single') return JSON.stringify({ id: accepted[0]!.id });
  return JSON.stringify({
    data: accepted.map((a) => ({ id: a.id })),
    ...(mode === 'permissive' ? { errors: errors.map(({ index, message }) => ({ index, message })) } : {}),
  });
}
