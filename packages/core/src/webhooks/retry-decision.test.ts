import { describe, expect, it } from 'vitest';
import {
  decideAfterAttempt,
  DEFAULT_WEBHOOK_RETRY_SCHEDULE_S,
  parseRetryAfter,
  scheduleMs,
  type AttemptOutcome,
  type RetryDecision,
} from './index.js';

const SCHEDULE = scheduleMs(DEFAULT_WEBHOOK_RETRY_SCHEDULE_S, 1);
const DAY = 86_400_000;
const NOW = 10 * DAY;
const ok = (status: number, retryAfterMs?: number): AttemptOutcome => ({
  kind: 'response',
  status,
  ...(retryAfterMs !== undefined && { retryAfterMs }),
});

describe('decideAfterAttempt', () => {
  const cases: [string, AttemptOutcome, number, number | null, RetryDecision][] = [
    [
      '200 ends it, endpoint healthy',
      ok(200),
      1,
      NOW - DAY,
      { event: 'success', endpoint: { kind: 'healthy' } },
    ],
    ['204 is a success too', ok(204), 3, null, { event: 'success', endpoint: { kind: 'healthy' } }],
    [
      '500 on attempt 1 → retry in 5 s, failing since now',
      ok(500),
      1,
      null,
      { event: 'retry', delayMs: 5_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      '500 on attempt 2 → 5 min, failing since the first failure',
      ok(500),
      2,
      NOW - 5_000,
      { event: 'retry', delayMs: 300_000, endpoint: { kind: 'failing', sinceMs: NOW - 5_000 } },
    ],
    [
      '302 is a failure (redirects are not followed)',
      ok(302),
      1,
      null,
      { event: 'retry', delayMs: 5_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      'a timeout is retried',
      { kind: 'error', message: 'timed out' },
      3,
      NOW,
      { event: 'retry', delayMs: 1_800_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      '410 disables at once, no more attempts',
      ok(410),
      1,
      null,
      { event: 'failed', endpoint: { kind: 'disable', reason: 'gone', sinceMs: NOW } },
    ],
    [
      'a refused destination is not retried',
      { kind: 'refused', message: 'private' },
      1,
      null,
      { event: 'failed', endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      'attempt 8 failing ends the schedule',
      ok(500),
      8,
      NOW - DAY,
      { event: 'failed', endpoint: { kind: 'failing', sinceMs: NOW - DAY } },
    ],
    [
      'failing for 5 days disables the endpoint',
      ok(500),
      2,
      NOW - 5 * DAY,
      { event: 'failed', endpoint: { kind: 'disable', reason: 'failing', sinceMs: NOW - 5 * DAY } },
    ],
    [
      'Retry-After longer than the schedule wins on 429',
      ok(429, 60_000),
      1,
      null,
      { event: 'retry', delayMs: 60_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      'Retry-After shorter than the schedule does not shorten it (503)',
      ok(503, 1_000),
      2,
      NOW,
      { event: 'retry', delayMs: 300_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
    [
      'a 500 with webhook-delivery: abort-message: given up, the endpoint not held to have failed',
      { kind: 'response', status: 500, abort: true },
      1,
      NOW - DAY,
      { event: 'failed', endpoint: { kind: 'healthy' } },
    ],
    [
      'Retry-After on a 500 is ignored',
      ok(500, 60_000),
      1,
      null,
      { event: 'retry', delayMs: 5_000, endpoint: { kind: 'failing', sinceMs: NOW } },
    ],
  ];
  it.each(cases)('%s', (_, outcome, attempt, failingSinceMs, expected) => {
    expect(
      decideAfterAttempt({
        outcome,
        attempt,
        scheduleMs: SCHEDULE,
        failingSinceMs,
        nowMs: NOW,
        disableAfterMs: 5 * DAY,
      }),
    ).toEqual(expected);
  });

  it('the default schedule is 8 attempts over about 28 hours; scaling compresses it', () => {
    expect(SCHEDULE).toHaveLength(8);
    expect(SCHEDULE.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(27.6, 1);
    expect(scheduleMs([0, 5, 300], 0.001)).toEqual([0, 5, 300]);
  });

  it('parses Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', 0)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 1970 00:01:00 GMT', 0)).toBe(60_000);
    expect(parseRetryAfter('soon', 0)).toBeUndefined();
    expect(parseRetryAfter(undefined, 0)).toBeUndefined();
  });
});
