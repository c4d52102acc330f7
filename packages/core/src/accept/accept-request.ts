/**
 * What a producer hands to acceptEmails, and the first stage: validation. An HTTP request brings
 * a JSON body still to validate (POST /emails, POST /emails/batch); an SMTP submission or an
 * automation step brings emails it has already parsed, which skip the wire validation and go
 * through the same later stages.
 */
import { validationError, type EmailContent } from '@petrel/contracts';
import { validateBatch, validateEmail } from '../validation/index.js';
import type { Clock } from '../kernel/clock.js';
import type { AcceptError, Endpoint, SenderScope } from './ports.js';

interface AcceptRequestBase {
  teamId: string;
  idempotencyKey: string | undefined;
  /**
   * Read once, at the start of acceptEmails: the acceptance instant, which `scheduled_at` is
   * judged against and ids are stamped with.
   */
  clock: Pick<Clock, 'now'>;
  /** What the request's credential restricts (a domain-restricted API key); none when absent. */
  scope?: SenderScope;
}

/** A request as it came over HTTP: the body is validated by the first stage. */
export interface WireAcceptRequest extends AcceptRequestBase {
  endpoint: Endpoint;
  body: unknown;
  /** Batch validation mode (`x-batch-validation`); a single send is always strict. */
  mode: 'strict' | 'permissive';
}

/** Emails a producer has already parsed and checked (SMTP submission, an automation step). */
export interface ParsedAcceptRequest extends AcceptRequestBase {
  emails: EmailContent[];
}

export type AcceptRequest = WireAcceptRequest | ParsedAcceptRequest;

export interface AcceptResponse {
  status: number;
  /** The JSON text of the response body (stored verbatim for idempotent replays). */
  body: string;
  replayed: boolean;
  accepted: number;
}

/** A request after validation: the emails to prepare and (permissive batch) the refused ones. */
export interface CheckedRequest {
  endpoint: Endpoint;
  mode: 'strict' | 'permissive';
  /** What identifies the request under an Idempotency-Key. */
  fingerprintBody: unknown;
  valid: { index: number; email: EmailContent }[];
  errors: AcceptError[];
}

export const isParsed = (req: AcceptRequest): req is ParsedAcceptRequest => 'emails' in req;

/** The endpoint a request names its emails by (known before validation). */
export function endpointOf(req: AcceptRequest): Endpoint {
  if (isParsed(req)) return req.emails.length === 1 ? 'single' : 'batch';
  return req.endpoint;
}

/** Stage 1, pure: throws a PetrelError when the request is refused as a whole. `nowMs`: the acceptance instant. */
export function checkRequest(req: AcceptRequest, nowMs: number): CheckedRequest {
  const endpoint = endpointOf(req);
  if (isParsed(req)) {
    if (req.emails.length === 0) throw validationError('emails: at least one email is required');
    return {
      endpoint,
      mode: 'strict',
      fingerprintBody: req.emails,
      valid: req.emails.map((email, index) => ({ index, email })),
      errors: [],
    };
  }
  const base = { endpoint, mode: req.mode, fingerprintBody: req.body };
  if (endpoint === 'single') {
    const res = validateEmail(req.body, { nowMs, context: 'single' });
    if (!res.ok) throw validationError(res.message);
    return { ...base, valid: [{ index: 0, email: res.email }], errors: [] };
  }
  const res = validateBatch(req.body, { mode: req.mode, nowMs });
  if (res.errors.length > 0 && req.mode === 'strict') throw validationError(res.errors[0]!.message);
  return { ...base, valid: res.accepted, errors: res.errors };
}
