import { describe, expect, it } from 'vitest';
import { rateLimitDecision, type RateLimitAnswer } from './rate-limit.js';
import { secondsToUtcMidnight, utcDay } from './daily-quota.js';

const NOW = 1_800_000_000_000;

describe('rateLimitDecision', () => {
  it.each<[string, RateLimitAnswer, Record<string, unknown>]>([
    ['no limit', { limit: 0 }, { kind: 'off' }],
    [
      'first request of a fresh allowance of 10/s',
      { limit: 10, admitted: true, tatMs: NOW + 100, nowMs: NOW },
      { kind: 'allowed', remaining: 9, resetS: 1 },
    ],
    [
      'the last request of a burst of 10',
      { limit: 10, admitted: true, tatMs: NOW + 1000, nowMs: NOW },
      { kind: 'allowed', remaining: 0, resetS: 1 },
    ],
    [
      'a limit of 3: T is a third of a second, carried as a decimal',
      { limit: 3, admitted: true, tatMs: NOW + 333.333, nowMs: NOW },
      { kind: 'allowed', remaining: 2, resetS: 1 },
    ],
    [
      'refused right after a burst of 2: one more passes in half a second',
      { limit: 2, admitted: false, tatMs: NOW + 1000, nowMs: NOW },
      { kind: 'limited', remaining: 0, resetS: 1, retryAfterS: 1 },
    ],
    [
      'refused with the allowance far ahead (a limit lowered meanwhile): wait it out',
      { limit: 1, admitted: false, tatMs: NOW + 4500, nowMs: NOW },
      { kind: 'limited', remaining: 0, resetS: 5, retryAfterS: 5 },
    ],
    [
      'a TAT in the past counts as a whole allowance',
      { limit: 5, admitted: true, tatMs: NOW - 10_000, nowMs: NOW },
      { kind: 'allowed', remaining: 5, resetS: 0 },
    ],
  ])('%s', (_name, answer, expected) => {
    expect(rateLimitDecision(answer)).toMatchObject(expected);
  });

  it.each<[string, RateLimitAnswer, Record<string, string>, string | undefined]>([
    [
      'an admission',
      { limit: 10, admitted: true, tatMs: NOW + 300, nowMs: NOW },
      {
        'ratelimit-limit': '10',
        'ratelimit-remaining': '7',
        'ratelimit-reset': '1',
        'ratelimit-policy': '10;w=1',
      },
      undefined,
    ],
    [
      'a refusal',
      { limit: 2, admitted: false, tatMs: NOW + 1000, nowMs: NOW },
      { 'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-policy': '2;w=1' },
      '1',
    ],
  ])(
    'writes the IETF header fields on %s, retry-after only on a refusal',
    (_name, answer, headers, retryAfter) => {
      const decision = rateLimitDecision(answer);
      expect(decision).toMatchObject({ headers });
      expect(decision.kind !== 'off' && decision.headers['retry-after']).toBe(retryAfter);
    },
  );

  it('admits a burst of `limit`, then one per T: the GCRA the store runs, step by step', () => {
    // reference model of the store's script
    const limit = 4;
    const T = 1000 / limit;
    let tat = 0;
    const step = (now: number) => {
      const base = Math.max(tat, now);
      const admitted = base + T - now <= 1000;
      if (admitted) tat = base + T;
      return rateLimitDecision({ limit, admitted, tatMs: admitted ? tat : base, nowMs: now });
    };
    const burst = [0, 0, 0, 0, 0].map(() => step(NOW));
    expect(burst.map((d) => d.kind)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'limited']);
    expect(burst.map((d) => (d.kind === 'off' ? -1 : d.remaining))).toEqual([3, 2, 1, 0, 0]);
    expect(step(NOW + T - 1).kind).toBe('limited');
    expect(step(NOW + T).kind).toBe('allowed');
  });
});

describe('daily quota days', () => {
  it.each([
    [Date.UTC(2026, 10, 23, 0, 0, 0), '2026-11-23', 86_400],
    [Date.UTC(2026, 10, 23, 23, 59, 59, 500), '2026-11-23', 1],
    [Date.UTC(2026, 11, 31, 12), '2026-12-31', 43_200],
  ])('%d is %s, %d s before it resets', (ms, day, left) => {
    expect(utcDay(ms)).toBe(day);
    expect(secondsToUtcMidnight(ms)).toBe(left);
  });
});
