/**
 * Use-case: accept emails for sending. The one entry for every producer — POST /emails and
 * POST /emails/batch today, SMTP submission and automation steps (already-parsed emails) later.
 *
 *   1. validate        the wire body (pure); parsed emails skip this
 *   2. claim           the Idempotency-Key: a completed request with the same body replays
 *   3. prepare         the stages (stages/index.ts): resolve template → fetch attachments → topics
 *   4. accept          ids, status, timeline event per email, and the response body
 *   5. commit          records + jobs + idempotency completion (CommitPort: all or finishable)
 *
 * Nothing is written before 5, so a refusal at any stage leaves no trace; a refusal after the
 * claim releases it, a failure of the commit leaves it to expire so a retry recomputes the same
 * ids.
 *
 * Validation depends on the clock (`scheduled_at` must lie ahead), so a retry of a request that
 * was accepted can fail it later. Such a retry carrying the same Idempotency-Key and body gets
 * the stored response: a refused request peeks at its key (read only, no claim)
 * before answering with its error. Requests that validate pay nothing for this.
 */
import { PetrelError } from '@petrel/contracts';
import {
  checkRequest,
  endpointOf,
  isParsed,
  type AcceptRequest,
  type AcceptResponse,
  type CheckedRequest,
} from './accept-request.js';
import { responseBody, toAcceptedEmails, type EmailIdInputs } from './accepted-emails.js';
import { checkIdempotencyKey, claimKey, releaseIfRefused, replayOfRefused } from './idempotency.js';
import type { AcceptError, AcceptPorts, PrepareResult } from './ports.js';

export type {
  AcceptRequest,
  AcceptResponse,
  ParsedAcceptRequest,
  WireAcceptRequest,
} from './accept-request.js';
export type * from './ports.js';
export { checkIdempotencyKey } from './idempotency.js';
export { messageIdFor } from './accepted-emails.js';
export * from './commit-acceptance.js';

export async function acceptEmails(req: AcceptRequest, ports: AcceptPorts): Promise<AcceptResponse> {
  checkIdempotencyKey(req.idempotencyKey);
  const nowMs = req.clock.now();

  const checked = await validate(req, nowMs, ports);
  if ('replayed' in checked) return checked;
  const { endpoint, mode, fingerprintBody } = checked;

  const claim = await claimKey(req, endpoint, fingerprintBody, ports);
  if ('replayed' in claim) return claim;

  try {
    const prepared = await ports.prepare(req.teamId, checked.valid, endpoint, req.scope);
    const errors = refusedEmails(checked, prepared);

    const ids: EmailIdInputs = {
      teamId: req.teamId,
      endpoint,
      idempotencyKey: req.idempotencyKey,
      claimMs: claim.startedMs,
      nowMs,
    };
    const accepted = toAcceptedEmails(ids, prepared.emails);
    const body = responseBody(endpoint, mode, accepted, errors);

    const completion = claim.token !== undefined ? { token: claim.token, status: 200, body } : undefined;
    await ports.commit(req.teamId, accepted, completion);
    return { status: 200, body, replayed: false, accepted: accepted.length };
  } catch (err) {
    await releaseIfRefused(claim, err, ports);
    throw err;
  }
}

/** Stage 1, or the stored response when a refused request is the retry of an accepted one. */
async function validate(
  req: AcceptRequest,
  nowMs: number,
  ports: AcceptPorts,
): Promise<CheckedRequest | AcceptResponse> {
  try {
    return checkRequest(req, nowMs);
  } catch (err) {
    if (!(err instanceof PetrelError) || isParsed(req)) throw err;
    const replay = await replayOfRefused(req, endpointOf(req), req.body, ports);
    if (replay) return replay;
    throw err;
  }
}

/**
 * The emails refused by validation or a stage, in request order. A single send or a strict batch
 * is refused as a whole by its first refusal; a permissive batch reports them and goes on.
 */
function refusedEmails(checked: CheckedRequest, prepared: PrepareResult): AcceptError[] {
  const first = prepared.errors[0];
  if (first && (checked.mode === 'strict' || checked.endpoint === 'single')) {
    throw new PetrelError(first.name ?? 'validation_error', first.message, first.status);
  }
  return [...checked.errors, ...prepared.errors].sort((a, b) => a.index - b.index);
}
