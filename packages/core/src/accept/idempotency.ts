/**
 * The Idempotency-Key rules of acceptance, as Resend defines them: the
 * key's shape, the claim and what each outcome means for the client, the read-only peek that
 * lets the retry of an accepted request replay although its body no longer validates, and the
 * release of a claim whose request was refused before anything was written.
 */
import { LIMITS, PetrelError } from '@petrel/contracts';
import type { AcceptRequest, AcceptResponse } from './accept-request.js';
import type { Endpoint, IdempotencyPort } from './ports.js';

/** Throws `invalid_idempotency_key` (400) for a key outside 1..LIMITS.idempotencyKeyLength. */
export function checkIdempotencyKey(key: string | undefined): void {
  if (key === undefined) return;
  if (key.length < 1 || key.length > LIMITS.idempotencyKeyLength) {
    throw new PetrelError(
      'invalid_idempotency_key',
      `Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyLength} characters long (got ${key.length})`,
    );
  }
}

const replayOf = (stored: { status: number; body: string }): AcceptResponse => ({
  status: stored.status,
  body: stored.body,
  replayed: true,
  accepted: 0,
});

/** What the use-case holds after the claim: nothing (no key), or the claim to complete or release. */
export type Claim = { token: unknown; startedMs: number } | { token: undefined; startedMs: undefined };

/**
 * Claims the request's key. Returns the claim, or the stored response of the completed request
 * with the same body (a replay). Throws 409 for another body or a request still in flight.
 */
export async function claimKey(
  req: Pick<AcceptRequest, 'teamId' | 'idempotencyKey'>,
  endpoint: Endpoint,
  fingerprintBody: unknown,
  ports: IdempotencyPort,
): Promise<Claim | AcceptResponse> {
  if (req.idempotencyKey === undefined) return { token: undefined, startedMs: undefined };
  const claim = await ports.claim(
    req.teamId,
    req.idempotencyKey,
    ports.fingerprint(endpoint, fingerprintBody),
  );
  ports.onIdempotency?.(claim.outcome);
  switch (claim.outcome) {
    case 'replay':
      return replayOf(claim);
    case 'mismatch':
      throw new PetrelError(
        'invalid_idempotent_request',
        'This Idempotency-Key was already used with a different request body within the last 24 hours.',
      );
    case 'in_flight':
      throw new PetrelError(
        'concurrent_idempotent_requests',
        'A request with this Idempotency-Key is still being processed; retry after it completes.',
      );
    case 'proceed':
      return { token: claim.token, startedMs: claim.startedMs };
  }
}

/**
 * For a request refused by validation: the stored response when it carries a key under which
 * the same body completed (validation depends on the clock, so the retry of an accepted
 * scheduled email may fail it later). Read only: nothing is claimed.
 */
export async function replayOfRefused(
  req: AcceptRequest,
  endpoint: Endpoint,
  fingerprintBody: unknown,
  ports: IdempotencyPort,
): Promise<AcceptResponse | undefined> {
  if (req.idempotencyKey === undefined) return undefined;
  const stored = await ports.lookup(
    req.teamId,
    req.idempotencyKey,
    ports.fingerprint(endpoint, fingerprintBody),
  );
  if (stored === undefined) return undefined;
  ports.onIdempotency?.('replay');
  return replayOf(stored);
}

/**
 * After a failure: a request refused before any write (a 4xx) frees its key so the client can
 * fix the request and reuse it; after anything else the claim is left to expire, so a retry
 * recomputes the same ids and nothing is sent twice.
 */
export async function releaseIfRefused(claim: Claim, err: unknown, ports: IdempotencyPort): Promise<void> {
  if (claim.token !== undefined && err instanceof PetrelError && err.statusCode < 500) {
    await ports.release(claim.token);
  }
}
