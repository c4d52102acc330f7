import { describe, expect, it } from 'vitest';
import { broadcastLaneYield, type LaneYieldRule } from './lane-yield.js';

const rule: LaneYieldRule = { idleAt: 0, busyAt: 20, minConcurrency: 1 };
const FULL = 21;

describe('broadcastLaneYield: transactional pressure → the broadcast lane concurrency', () => {
  it('runs the full concurrency while the transactional lane is at or below idleAt', () => {
    for (const pressure of [0, -3, Number.NaN])
      expect(broadcastLaneYield(pressure, rule, FULL)).toEqual({
        state: 'full',
        pressure,
        concurrency: FULL,
      });
    expect(broadcastLaneYield(5, { ...rule, idleAt: 5 }, FULL).concurrency).toBe(FULL);
  });

  it('lowers the concurrency in proportion between idleAt and busyAt', () => {
    // halfway: half of the way from 21 to 1
    expect(broadcastLaneYield(10, rule, FULL)).toEqual({ state: 'yielding', pressure: 10, concurrency: 11 });
    const light = broadcastLaneYield(1, rule, FULL);
    const heavy = broadcastLaneYield(19, rule, FULL);
    expect(light.state).toBe('yielding');
    expect(light.concurrency).toBeLessThan(FULL);
    expect(light.concurrency).toBeGreaterThan(heavy.concurrency);
  });

  it('is at minConcurrency from busyAt on, and never below 1 (a broadcast never stops)', () => {
    for (const pressure of [20, 5_000, Number.POSITIVE_INFINITY])
      expect(broadcastLaneYield(pressure, rule, FULL).concurrency).toBe(1);
    expect(broadcastLaneYield(100, { ...rule, minConcurrency: 4 }, FULL).concurrency).toBe(4);
    expect(broadcastLaneYield(100, { ...rule, minConcurrency: 0 }, FULL).concurrency).toBe(1);
  });

  it('never goes above the full concurrency, whatever the floor', () => {
    expect(broadcastLaneYield(100, { ...rule, minConcurrency: 50 }, 8).concurrency).toBe(8);
    expect(broadcastLaneYield(0, rule, 0).concurrency).toBe(1);
  });
});
