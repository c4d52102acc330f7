import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';

const DAY = 86_400_000;
const MAX = 30 * DAY;

describe('parseDuration', () => {
  it.each([
    ['30 seconds', 30_000],
    ['1 second', 1_000],
    ['2 hours', 7_200_000],
    ['1 day', DAY],
    ['30 minutes', 1_800_000],
    ['1 week', 7 * DAY],
    ['1 hour 30 minutes', 5_400_000],
    ['1 day, 2 hours and 3 minutes', DAY + 7_200_000 + 180_000],
    ['  5 MINUTES ', 300_000],
    ['10s', 10_000],
    ['2h', 7_200_000],
    ['1.5 hours', 5_400_000],
    ['PT2S', 2_000],
    ['PT1S', 1_000],
    ['pt0.5s', 500],
    ['PT2H', 7_200_000],
    ['P1D', DAY],
    ['P1DT12H', DAY + 12 * 3_600_000],
    ['P2W', 14 * DAY],
    ['PT1M30S', 90_000],
    ['30 days', 30 * DAY],
    ['P30D', 30 * DAY],
  ])('%s → %d ms', (text, ms) => {
    expect(parseDuration(text, MAX)).toEqual({ ok: true, ms });
  });

  it.each([
    ['', 'must not be empty'],
    ['soon', 'is not a duration'],
    ['5 fortnights', 'is not a duration'],
    ['hours 2', 'is not a duration'],
    ['-5 minutes', 'is not a duration'],
    ['0 seconds', 'longer than zero'],
    ['PT0S', 'longer than zero'],
    ['P', 'is not an ISO 8601 duration'],
    ['PT', 'is not an ISO 8601 duration'],
    ['P1Y', 'years and months'],
    ['P1M', 'years and months'],
    ['PT5X', 'is not an ISO 8601 duration'],
    ['31 days', 'at most 30 days'],
    ['P31D', 'at most 30 days'],
    ['5 weeks', 'at most 30 days'],
  ])('%j is refused (%s)', (text, reason) => {
    const res = parseDuration(text, MAX);
    expect(res.ok).toBe(false);
    if (!res.ok) expect(res.reason).toContain(reason);
  });
});
