/**
 * The BullMQ side of a delivery outcome (a processor signals intent with BullMQ's error
 * classes). The outcome is already recorded; this only decides the job's fate:
 *   delayed             → SoftFailError: retried on the `smtp-retry` backoff ladder
 *   bounced Permanent   → UnrecoverableError: never retried
 *   failed at build-mime → UnrecoverableError: a message that passed validation but cannot be
 *                          built is a defect, so it stays in the failed set to be looked at
 *   held                → the processor moves the job back to delayed (a paused broadcast)
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

export function toJobResult(outcome: DeliverOutcome): JobResult {
  switch (outcome.kind) {
    case 'held':
      // a paused broadcast's email: the processor moves its job back to delayed before this
      throw new Error('a held outcome is the processor’s to delay, not a job result');
    case 'delayed':
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
