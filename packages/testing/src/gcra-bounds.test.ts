import { describe, expect, it } from 'vitest';
import { gcraBounds } from './gcra-bounds.js';

/** The GCRA step of `petrelTakeRateLimit` (packages/store), over arrival times in ms. */
function admitted(limit: number, arrivals: number[], windowMs = 1_000): number {
  const interval = windowMs / limit;
  let tat = 0;
  let n = 0;
  for (const now of arrivals) {
    const after = Math.max(tat, now) + interval;
    if (after - now > windowMs + 0.001) continue;
    tat = Math.round(after * 1000) / 1000;
    n += 1;
  }
  return n;
}

/** A deterministic pseudo-random sequence (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('gcraBounds', () => {
  it('a burst all at once: exactly the limit passes, both bounds met', () => {
    expect(admitted(2, Array(40).fill(1_000))).toBe(2);
    expect(gcraBounds({ limit: 2, sent: 40, fromMs: 1_000, toMs: 1_000 })).toEqual({ min: 2, max: 2 });
  });

  it('requests spread evenly at the rate: one per interval on top of the burst reaches the upper bound', () => {
    const arrivals = Array.from({ length: 12 }, (_, i) => (i < 3 ? 0 : (i - 2) * 250));
    expect(admitted(4, arrivals)).toBe(12);
    expect(gcraBounds({ limit: 4, sent: 12, fromMs: 0, toMs: 2_500 }).max).toBe(12);
    expect(gcraBounds({ limit: 4, sent: 99, fromMs: 0, toMs: 2_000 }).max).toBe(12);
  });

  it('holds for any spread of arrivals from a whole allowance', () => {
    const next = random(23);
    for (let round = 0; round < 2_000; round++) {
      const limit = 1 + Math.floor(next() * 10);
      const sent = 1 + Math.floor(next() * 60);
      const spanMs = next() * 5_000;
      const arrivals = Array.from({ length: sent }, () => 10_000 + next() * spanMs).sort((a, b) => a - b);
      const n = admitted(limit, arrivals);
      const bounds = gcraBounds({ limit, sent, fromMs: arrivals[0]!, toMs: arrivals.at(-1)! });
      expect(n, `round ${round}`).toBeGreaterThanOrEqual(bounds.min);
      expect(n, `round ${round}`).toBeLessThanOrEqual(bounds.max);
    }
  });
});
