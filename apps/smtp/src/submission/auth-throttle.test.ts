import { describe, expect, it } from 'vitest';
import { AuthThrottle } from './auth-throttle.js';

describe('AuthThrottle', () => {
  it('closes at the fifth failure, then delays every attempt, doubling up to the cap', () => {
    const t = new AuthThrottle({ maxFailures: 5, clock: { now: () => 0 } });
    const closes = [1, 2, 3, 4, 5].map(() => t.fail('1.2.3.4'));
    expect(closes).toEqual([false, false, false, false, true]);
    expect(t.delayMs('1.2.3.4')).toBe(1_000);
    t.fail('1.2.3.4');
    expect(t.delayMs('1.2.3.4')).toBe(2_000);
    for (let i = 0; i < 10; i++) t.fail('1.2.3.4');
    expect(t.delayMs('1.2.3.4')).toBe(30_000);
    expect(t.delayMs('5.6.7.8')).toBe(0);
  });

  it('forgets an address after a success or a quiet period, and the oldest beyond its capacity', () => {
    let now = 0;
    const t = new AuthThrottle({
      maxFailures: 1,
      forgetAfterMs: 1_000,
      maxEntries: 2,
      clock: { now: () => now },
    });
    t.fail('a');
    t.succeed('a');
    expect(t.delayMs('a')).toBe(0);
    t.fail('b');
    now = 2_000;
    expect(t.delayMs('b')).toBe(0);
    t.fail('c');
    t.fail('d');
    t.fail('e');
    expect(t.delayMs('c')).toBe(0);
    expect(t.delayMs('e')).toBe(1_000);
  });
});
