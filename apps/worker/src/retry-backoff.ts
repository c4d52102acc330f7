/**
 * The `smtp-retry` backoff strategy of the send workers: the retry policy's ladder (packages/core)
 * with upward jitter, waiting longer when the server said "try again in N" (SoftFailError).
 */
import { computeRetryDelay, DEFAULT_RETRY_JITTER, DEFAULT_RETRY_SCHEDULE_S } from '@petrel/core';
import type { SendJob } from '@petrel/contracts';
import { attemptsBefore } from './deliver-email.processor.js';
import { SoftFailError } from './job-result.js';

/** RETRY_SCHEDULE_S (`60,300,900`) as seconds, or the default 24 h ladder when unset. */
export function retrySchedule(configured: string | undefined): number[] {
  return configured ? configured.split(',').map(Number) : [...DEFAULT_RETRY_SCHEDULE_S];
}

export function smtpRetryBackoff(schedule: readonly number[], scale: number) {
  // attemptsMade counts the attempt that just failed (1 after the first failure), plus those the
  // email made in its group job before it was handed over to this one (`attemptsBefore`).
  return (attemptsMade: number, _type?: string, err?: Error, job?: { data?: unknown }): number => {
    const hint = err instanceof SoftFailError ? err.retryAfterMs : undefined;
    const before = attemptsBefore((job?.data ?? {}) as Pick<SendJob, 'attemptsBefore'>);
    const delay = computeRetryDelay(attemptsMade + before, schedule, {
      scale,
      jitter: DEFAULT_RETRY_JITTER,
      ...(hint !== undefined ? { retryAfterMs: hint } : {}),
    });
    return delay ?? 0;
  };
}
