/**
 * The BullMQ side of a delivery outcome (a processor signals intent with BullMQ's error
 * classes). The outcome is already recorded; this only decides the job's fate:
 *   delayed             → SoftFailError: retried on the `smtp-retry` backoff ladder
 *   bounced Permanent   → UnrecoverableError: never retried
 *   failed at build-mime → UnrecoverableError: a message that passed validation but cannot be
 *                          built is a defect, so it stays in the failed set to be looked at
 *   held, or delayed    → the processor moves the job back to delayed without spending an
 *   `deferred`            attempt ({@link waitsWithoutAttempt}: a paused broadcast's hold, a
 *                         warm-up cap's deferral)
 *   anything else        → completed, with the outcome's name as the return value
 */
import type { DeliverOutcome } from '@petrel/core';
import { UnrecoverableError } from '@petrel/queue';

/** Thrown on a temporary failure; the backoff strategy reads `retryAfterMs`. */
export class SoftFailError extends Error {
  override name = 'SoftFailError';
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(message);
  }
}

export type JobResult = Exclude<DeliverOutcome['kind'], 'delayed' | 'held'>;

/** How long a deferral waits when the sender gave no time (it always does today). */
const DEFERRAL_FALLBACK_MS = 60_000;

/**
 * When the job must wait without spending an attempt of its retry ladder, or null: a paused
 * broadcast's held email (until its next look), or a delivery Petrel deferred itself before asking
 * any server (a sending pool's warm-up cap: until the cap allows it). BullMQ's
 * `job.moveToDelayed` leaves `attemptsMade` as it is, where a thrown error would count one.
 */
export function waitsWithoutAttempt(outcome: DeliverOutcome, nowMs: number): number | null {
  if (outcome.kind === 'held') return outcome.untilMs;
  if (outcome.kind === 'delayed' && outcome.deferred) {
    return nowMs + (outcome.retryAfterMs ?? DEFERRAL_FALLBACK_MS);
  }
  return null;
}

export function toJobResult(outcome: DeliverOutcome): JobResult {
  switch (outcome.kind) {
    case 'held':
      // a paused broadcast's email: the processor moves its job back to delayed before this
      throw new Error('a held outcome is the processor’s to delay, not a job result');
    case 'delayed':
      if (outcome.deferred) throw new Error('a deferral is the processor’s to delay, not a job result');
      throw new SoftFailError(`temporary failure: ${outcome.detail}`, outcome.retryAfterMs);
    case 'bounced':
      if (outcome.bounce === 'Permanent') {
        throw new UnrecoverableError(`permanent SMTP failure ${outcome.code}: ${outcome.detail}`);
      }
      return 'bounced';
    case 'failed':
      if (outcome.stage === 'build-mime') {
        throw new UnrecoverableError(`message cannot be built: ${outcome.reason}`);
      }
      return 'failed';
    default:
      return outcome.kind;
  }
}
