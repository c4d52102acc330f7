import { describe, expect, it } from 'vitest';
import { fanoutPace, type FanoutPaceRule } from './pacing.js';

const rule: FanoutPaceRule = { idleAt: 10, busyAt: 110, minPageSize: 100, maxDelayMs: 200 };
const FULL = 1_000;

describe('fanoutPace: transactional pressure → the next page of a fan-out', () => {
  it('runs at full speed while the transactional lane is at or below idleAt', () => {
    for (const pressure of [0, 1, 10])
      expect(fanoutPace(pressure, rule, FULL)).toEqual({
        state: 'full',
        pressure,
        pageSize: FULL,
        delayMs: 0,
      });
  });

  it('shrinks the page and grows the pause in proportion between idleAt and busyAt', () => {
    // halfway: half of the way from 1,000 to 100 contacts, half of the 200 ms pause
    expect(fanoutPace(60, rule, FULL)).toEqual({ state: 'paced', pressure: 60, pageSize: 550, delayMs: 100 });
    const light = fanoutPace(20, rule, FULL);
    const heavy = fanoutPace(100, rule, FULL);
    expect(light.state).toBe('paced');
    expect(light.pageSize).toBeGreaterThan(heavy.pageSize);
    expect(light.delayMs).toBeLessThan(heavy.delayMs);
  });

  it('is bounded at busyAt and beyond: minPageSize contacts after maxDelayMs, never a stop', () => {
    for (const pressure of [110, 5_000, 1e9])
      expect(fanoutPace(pressure, rule, FULL)).toEqual({
        state: 'paced',
        pressure,
        pageSize: 100,
        delayMs: 200,
      });
  });

  it('reads a missing or negative pressure as an idle lane', () => {
    expect(fanoutPace(Number.NaN, rule, FULL).state).toBe('full');
    expect(fanoutPace(-3, rule, FULL).state).toBe('full');
  });

  it('keeps the page within 1..full whatever the settings', () => {
    expect(fanoutPace(1e6, { ...rule, minPageSize: 5_000 }, FULL).pageSize).toBe(FULL);
    expect(fanoutPace(1e6, { ...rule, minPageSize: 0 }, FULL).pageSize).toBe(1);
    // busyAt not above idleAt: any pressure over idleAt is the most pacing
    expect(fanoutPace(11, { ...rule, busyAt: 10 }, FULL)).toMatchObject({ pageSize: 100, delayMs: 200 });
  });
});
