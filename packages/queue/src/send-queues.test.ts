import { describe, expect, it } from 'vitest';
import { shardLimiter, splitEvenly } from './send-queues.js';

describe('splitEvenly (a lane concurrency over its queues)', () => {
  it('keeps the total, the parts differing by at most one', () => {
    for (const [total, parts] of [
      [50, 1],
      [50, 2],
      [50, 3],
      [50, 7],
      [64, 64],
      [1000, 9],
    ] as const) {
      const split = splitEvenly(total, parts);
      expect(split).toHaveLength(parts);
      expect(split.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...split) - Math.min(...split)).toBeLessThanOrEqual(1);
    }
    expect(splitEvenly(10, 4)).toEqual([3, 3, 2, 2]);
  });

  it('gives every queue at least one (BullMQ needs a concurrency of 1 or more)', () => {
    expect(splitEvenly(2, 4)).toEqual([1, 1, 1, 1]);
  });
});

describe('shardLimiter (a lane rate over its queues)', () => {
  it('splits the rate exactly, in whole jobs per whole milliseconds', () => {
    for (const [rate, queues] of [
      [10, 1],
      [10, 4],
      [7, 3],
      [1, 6],
      [100, 64],
    ] as const) {
      const { max, duration } = shardLimiter(rate, queues);
      expect(Number.isInteger(max) && Number.isInteger(duration)).toBe(true);
      // Jobs per second of all queues together.
      expect((queues * max * 1000) / duration).toBeCloseTo(rate, 9);
    }
    expect(shardLimiter(10, 1)).toEqual({ max: 10, duration: 1000 });
    expect(shardLimiter(10, 4)).toEqual({ max: 5, duration: 2000 });
  });
});
