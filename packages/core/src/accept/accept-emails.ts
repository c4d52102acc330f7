/**
 * Use-case: accept a send request (POST /emails or POST /emails/batch).
 *
 * Validate (pure) → claim the Idempotency-Key → prepare (templates, remote attachments) →
 * commit records + jobs + idempotency completion in one transaction. A validation failure after
 * the claim releases it (nothing was written); a failure of the commit leaves the claim to expire
 * so a retry recomputes the same ids (RELIABILITY.md).
 *
 * Validation depends on the clock (`scheduled_at` must lie ahead), so a retry of a request that
 * was accepted can fail it later. Such a retry carrying the same Idempotency-Key and body gets
 * the stored response (reference C.2): a failed validation peeks at the key (read only, no
 * claim) before answering with its error. Requests that validate pay nothing for this.
 */
import { LIMITS, PetrelError, validationError, type EmailContent, type EmailEvent } from '@petrel/contracts';
import { deterministicEmailId, newEmailId } from '../ids.js';
import { validateBatch, validateEmail } from '../validation/index.js';

export type Endpoint = 'batch' | 'single';

export type ClaimResult =
  | { outcome: 'proceed'; token: unknown; startedMs: number }
  | { outcome: 'mismatch' }
  | { outcome: 'in_flight' }
  | { outcome: 'replay'; status: number; body: string };

export interface AcceptedEmail {
  index: number;
  id: string;
  content: EmailContent;
  status: 'queued' | 'scheduled';
  /** Delay until a scheduled email is due. */
  delayMs: number;
  messageId: string;
  template?: { id: string; versionId: string };
  event: EmailEvent;
}

export interface PrepareResult {
  /** Emails after template resolution etc., keyed by request index. */
  emails: { index: number; email: EmailContent; template?: { id: string; versionId: string } }[];
  errors: { index: number; message: string }[];
}

/** A response stored under an Idempotency-Key. */
export interface StoredResponse {
  status: number;
  body: string;
}

export interface AcceptPorts {
  claim(teamId: string, key: string, fingerprint: string): Promise<ClaimResult>;
  /**
   * Read-only peek (never claims): the response stored for `key` when an earlier request with
   * this `fingerprint` completed, else undefined (unknown key, other body, still in flight).
   */
  lookup(teamId: string, key: string, fingerprint: string): Promise<StoredResponse | undefined>;
  release(token: unknown): Promise<void>;
  /**
   * Async, side-effect-free resolution (templates, remote attachments). `endpoint` tells how to
   * name fields in messages: `emails[i].` prefixes only in a batch.
   */
  prepare(
    teamId: string,
    emails: { index: number; email: EmailContent }[],
    endpoint: Endpoint,
  ): Promise<PrepareResult>;
  /** Write records, jobs and (when given) the idempotency completion atomically. */
  commit(
    teamId: string,
    emails: AcceptedEmail[],
    completion: { token: unknown; status: number; body: string } | undefined,
  ): Promise<void>;
  fingerprint(endpoint: Endpoint, body: unknown): string;
  onIdempotency?(outcome: ClaimResult['outcome']): void;
}

export interface AcceptRequest {
  teamId: string;
  endpoint: Endpoint;
  body: unknown;
  mode: 'strict' | 'permissive';
  idempotencyKey: string | undefined;
  now: Date;
}

export interface AcceptResponse {
  status: number;
  /** The JSON text of the response body (stored verbatim for idempotent replays). */
  body: string;
  replayed: boolean;
  accepted: number;
}

export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (key.length < 1 || key.length > LIMITS.idempotencyKeyLength) {
    throw new PetrelError(
      'invalid_idempotency_key',
      `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyLength} characters long (got ${key.length})`,
    );
  }
}

/** `<id@domain-of-from>`: stable across retries, so downstream can dedupe. */
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
  return `<${emailId}@${domain || 'petrel.local'}>`;
}

/** Step 1, pure: the valid emails and (permissive batch) the refused ones; throws when refused. */
function validateRequest(req: AcceptRequest): {
  valid: { index: number; email: EmailContent }[];
  errors: { index: number; message: string }[];
} {
  if (req.endpoint === 'single') {
    const res = validateEmail(req.body, { now: req.now, context: 'single' });
    if (!res.ok) throw validationError(res.message);
    return { valid: [{ index: 0, email: res.email }], errors: [] };
  }
  const res = validateBatch(req.body, { mode: req.mode, now: req.now });
  if (res.errors.length > 0 && req.mode === 'strict') throw validationError(res.errors[0]!.message);
  return { valid: res.accepted, errors: res.errors };
}

export async function acceptEmails(req: AcceptRequest, ports: AcceptPorts): Promise<AcceptResponse> {
  checkIdempotencyKey(req.idempotencyKey);

  // 1. Pure validation. A refused request with a key may be the retry of one that was accepted
  //    before its scheduled_at passed: then the stored response is the answer, not the error.
  let valid: { index: number; email: EmailContent }[];
  let errors: { index: number; message: string }[];
  try {
    ({ valid, errors } = validateRequest(req));
  } catch (err) {
    if (req.idempotencyKey !== undefined && err instanceof PetrelError) {
      const stored = await ports.lookup(
        req.teamId,
        req.idempotencyKey,
        ports.fingerprint(req.endpoint, req.body),
      );
      if (stored !== undefined) {
        ports.onIdempotency?.('replay');
        return { status: stored.status, body: stored.body, replayed: true, accepted: 0 };
      }
    }
    throw err;
  }

  // 2. Idempotency claim.
  let token: unknown;
  let claimMs = req.now.getTime();
  if (req.idempotencyKey !== undefined) {
    const claim = await ports.claim(
      req.teamId,
      req.idempotencyKey,
      ports.fingerprint(req.endpoint, req.body),
    );
    ports.onIdempotency?.(claim.outcome);
    if (claim.outcome === 'replay') {
      return { status: claim.status, body: claim.body, replayed: true, accepted: 0 };
    }
    if (claim.outcome === 'mismatch') {
      throw new PetrelError(
        'invalid_idempotent_request',
        'This Idempotency-Key was already used with a different request body within the last 24 hours.',
      );
    }
    if (claim.outcome === 'in_flight') {
      throw new PetrelError(
        'concurrent_idempotent_requests',
        'A request with this Idempotency-Key is still being processed; retry after it completes.',
      );
    }
    token = claim.token;
    claimMs = claim.startedMs;
  }

  try {
    // 3. Asynchronous preparation (template resolution, remote attachments).
    const prepared = await ports.prepare(req.teamId, valid, req.endpoint);
    errors = [...errors, ...prepared.errors].sort((a, b) => a.index - b.index);
    if (prepared.errors.length > 0 && (req.mode === 'strict' || req.endpoint === 'single')) {
      throw validationError(prepared.errors[0]!.message);
    }

    // 4. Ids, records and response.
    const createdAt = req.now.toISOString();
    const accepted: AcceptedEmail[] = prepared.emails.map(({ index, email, template }) => {
      const id =
        req.idempotencyKey !== undefined
          ? deterministicEmailId(req.teamId, req.idempotencyKey, req.endpoint, index, claimMs)
          : newEmailId(req.now.getTime());
      const scheduledMs = email.scheduled_at ? Date.parse(email.scheduled_at) : 0;
      const scheduled = scheduledMs > req.now.getTime();
      return {
        index,
        id,
        content: email,
        status: scheduled ? 'scheduled' : 'queued',
        delayMs: scheduled ? scheduledMs - req.now.getTime() : 0,
        messageId: messageIdFor(id, email.from),
        ...(template ? { template } : {}),
        event: {
          id: newEmailId(req.now.getTime()),
          type: scheduled ? 'email.scheduled' : 'email.queued',
          created_at: createdAt,
          teamId: req.teamId,
          data: { email_id: id, ...(scheduled ? { scheduled_at: email.scheduled_at } : {}) },
        },
      };
    });
    const bodyObj =
      req.endpoint === 'single'
        ? { id: accepted[0]!.id }
        : {
            data: accepted.map((a) => ({ id: a.id })),
            ...(req.mode === 'permissive' ? { errors } : {}),
          };
    const body = JSON.stringify(bodyObj);
    await ports.commit(req.teamId, accepted, token !== undefined ? { token, status: 200, body } : undefined);
    return { status: 200, body, replayed: false, accepted: accepted.length };
  } catch (err) {
    // Refused before any write: free the key so the client can fix the request and reuse it.
    if (token !== undefined && err instanceof PetrelError && err.statusCode < 500) {
      await ports.release(token);
    }
    throw err;
  }
}
