import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_SCHEDULE_S } from '@petrel/core';
import { SoftFailError } from './job-result.js';
import { retrySchedule, smtpRetryBackoff } from './retry-backoff.js';

describe('retrySchedule', () => {
  it('reads RETRY_SCHEDULE_S, or falls back to the default ladder', () => {
    expect(retrySchedule('60,300,900')).toEqual([60, 300, 900]);
    expect(retrySchedule(undefined)).toEqual([...DEFAULT_RETRY_SCHEDULE_S]);
  });
});

describe('smtpRetryBackoff', () => {
  const backoff = smtpRetryBackoff([1, 2], 1);

  it.each([
    [1, 1000],
    [2, 2000],
  ])('after failure %i waits the ladder step, plus at most 20 %% jitter', (attemptsMade, base) => {
    const d = backoff(attemptsMade, 'smtp-retry', new SoftFailError('451', undefined));
    expect(d).toBeGreaterThanOrEqual(base);
    expect(d).toBeLessThanOrEqual(base * 1.2);
  });

  it('waits for the server hint when it asks for longer', () => {
    expect(backoff(1, 'smtp-retry', new SoftFailError('451 try again in 60 s', 60_000))).toBe(60_000);
  });

  it('a hint only counts on a SoftFailError; a spent ladder retries at once', () => {
    const other = Object.assign(new Error('Connection is closed.'), { retryAfterMs: 60_000 });
    expect(backoff(1, 'smtp-retry', other)).toBeLessThanOrEqual(1200);
    expect(backoff(3, 'smtp-retry')).toBe(0);
  });

  it('scales waits and hints alike', () => {
    expect(smtpRetryBackoff([60], 0.001)(1, 'smtp-retry', new SoftFailError('x', 300_000))).toBe(300);
  });
});
