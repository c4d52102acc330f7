/**
 * A POST other than /emails under an optional Idempotency-Key, kept the way POST /emails keeps
 * its keys (the same store and rules): the same key and body replay the stored answer, another
 * body or a request still in flight is a 409, and a request refused by its own rules releases
 * its key so a corrected retry can use it. POST /events/send and the inbox draft create use it.
 */
import { claimKey, releaseIfRefused, type Claim } from '../accept/idempotency.js';
import type { EventIdempotencyPort } from './ports.js';

/** What such a POST answers, fresh or replayed. */
export interface IdempotentAnswer {
  status: number;
  /** The JSON text of the body (stored verbatim for replays). */
  body: string;
  replayed: boolean;
}

/**
 * Claims the key (`fingerprintBody` is what must match on a retry), runs `run` and stores its
 * answer `body` with `status` under the key. The key's own syntax is checked before, by the
 * caller, so a bad key is refused before the body's rules are.
 */
export async function idempotentPost(
  cmd: { teamId: string; idempotencyKey: string | undefined },
  fingerprintBody: unknown,
  idempotency: EventIdempotencyPort,
  status: number,
  run: (claim: Claim) => Promise<string>,
): Promise<IdempotentAnswer> {
  const claim = await claimKey(cmd, 'single', fingerprintBody, idempotency);
  if ('status' in claim) return { status: claim.status, body: claim.body, replayed: true };
  try {
    const body = await run(claim);
    if (claim.token !== undefined) await idempotency.complete(claim.token, status, body);
    return { status, body, replayed: false };
  } catch (err) {
    await releaseIfRefused(claim, err, idempotency);
    throw err;
  }
}
