import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  computeRetryDelay,
  DEFAULT_RETRY_SCHEDULE_S,
  DEFAULT_RETRY_WINDOW_S,
  MAX_RETRY_WINDOW_S,
  MIN_RETRY_WINDOW_S,
  RETRY_LADDER_S,
  retryScheduleForWindow,
} from './retry-policy.js';

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('DEFAULT_RETRY_SCHEDULE_S', () => {
  it('covers the default 24 h window exactly, as the TSDoc table says', () => {
    expect(sum(DEFAULT_RETRY_SCHEDULE_S)).toBeGreaterThanOrEqual(86_400);
    expect(sum(DEFAULT_RETRY_SCHEDULE_S)).toBe(DEFAULT_RETRY_WINDOW_S);
    expect(DEFAULT_RETRY_SCHEDULE_S).toEqual([60, 300, 900, 1800, 3600, 7200, 14400, 21600, 28800, 7740]);
  });
  it('the uncut ladder alone also covers 24 h', () => {
    expect(sum(RETRY_LADDER_S)).toBeGreaterThanOrEqual(86_400);
  });
});

describe('retryScheduleForWindow', () => {
  it('sums to the window for every window from 5 min to 5 days', () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_RETRY_WINDOW_S, max: MAX_RETRY_WINDOW_S }), (w) => {
        const s = retryScheduleForWindow(w);
        expect(sum(s)).toBe(w);
        expect(s.every((x) => x > 0)).toBe(true);
        // a prefix of the ladder, then its last step repeated, the final one cut
        s.slice(0, -1).forEach((x, i) =>
          expect(x).toBe(RETRY_LADDER_S[Math.min(i, RETRY_LADDER_S.length - 1)]),
        );
      }),
    );
  });
  it('5 min → 1 min then the 4 min left; 5 days repeats the 12 h step', () => {
    expect(retryScheduleForWindow(300)).toEqual([60, 240]);
    const five = retryScheduleForWindow(MAX_RETRY_WINDOW_S);
    expect(five.slice(-3)).toEqual([
      43200,
      43200,
      43200 - (sum(RETRY_LADDER_S) + 43200 * (five.length - RETRY_LADDER_S.length) - MAX_RETRY_WINDOW_S),
    ]);
  });
  it('refuses a non-positive window', () => {
    expect(() => retryScheduleForWindow(0)).toThrow(RangeError);
  });
});

describe('computeRetryDelay', () => {
  const schedule = [60, 300, 900];
  const opts = { scale: 1, jitter: 0.2 };

  it('uses schedule[attempt - 1] and returns null once it is exhausted', () => {
    const none = () => 0;
    expect(computeRetryDelay(1, schedule, { ...opts, random: none })).toBe(60_000);
    expect(computeRetryDelay(2, schedule, { ...opts, random: none })).toBe(300_000);
    expect(computeRetryDelay(3, schedule, { ...opts, random: none })).toBe(900_000);
    expect(computeRetryDelay(4, schedule, opts)).toBeNull();
  });

  it('only ever adds jitter: never earlier than scheduled, at most +jitter', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, r) => {
          const d = computeRetryDelay(attempt, schedule, { ...opts, random: () => r })!;
          const base = schedule[attempt - 1]! * 1000;
          expect(d).toBeGreaterThanOrEqual(base);
          expect(d).toBeLessThanOrEqual(Math.round(base * 1.2));
        },
      ),
    );
  });

  it('scales waits and hints alike (tests run at 0.001)', () => {
    expect(computeRetryDelay(1, schedule, { scale: 0.001, jitter: 0, random: () => 0.5 })).toBe(60);
    expect(computeRetryDelay(1, schedule, { scale: 0.001, jitter: 0, retryAfterMs: 300_000 })).toBe(300);
  });

  it('waits for the server hint when it asks for longer, and the schedule otherwise', () => {
    expect(computeRetryDelay(1, schedule, { scale: 1, jitter: 0, retryAfterMs: 300_000 })).toBe(300_000);
    expect(computeRetryDelay(2, schedule, { scale: 1, jitter: 0, retryAfterMs: 30_000 })).toBe(300_000);
  });

  it('refuses a bad attempt number, scale or jitter', () => {
    expect(() => computeRetryDelay(0, schedule, opts)).toThrow(RangeError);
    expect(() => computeRetryDelay(1.5, schedule, opts)).toThrow(RangeError);
    expect(() => computeRetryDelay(1, schedule, { scale: 0, jitter: 0 })).toThrow(RangeError);
    expect(() => computeRetryDelay(1, schedule, { scale: 1, jitter: 2 })).toThrow(RangeError);
  });
});
