import { RATE_LIMIT_WINDOW_MS } from '@petrel/core';

/**
 * How many of `sent` requests a team's GCRA allowance (docs/architecture.md, "Rate limits and
 * quotas") admits at `limit` requests per window when the store ran every step between `fromMs`
 * and `toMs` on its own clock (Redis's TIME: measure the window there, or take the steps' own
 * `nowMs`). With `T = window / limit`, a request at `now` passes while
 * `max(TAT, now) + T − now ≤ window`, and then moves the TAT to `max(TAT, now) + T`.
 *
 * - At most `limit · (window + (toMs − fromMs)) / window`: each admission moves the TAT by T from
 *   at least the first one's time, so after the n-th `TAT ≥ fromMs + n·T`, and that admission
 *   needed `TAT − now ≤ window` with `now ≤ toMs`. One more millisecond covers the script's
 *   0.001 ms tolerance and the TAT's rounding to 0.001 ms per step.
 * - At least `min(sent, limit)` when the allowance was whole at the first step (`TAT ≤ now`), all
 *   at once or spread out: before the k-th admission (k ≤ limit) `max(TAT, now) ≤ now + (k−1)·T`,
 *   so `max(TAT, now) + T − now ≤ k·T ≤ window`. Sent all at once, exactly that many pass.
 */
export function gcraBounds(opts: {
  limit: number;
  sent: number;
  fromMs: number;
  toMs: number;
  windowMs?: number;
}): { min: number; max: number } {
  const { limit, sent, fromMs, toMs, windowMs = RATE_LIMIT_WINDOW_MS } = opts;
  return {
    min: Math.min(sent, limit),
    max: Math.min(sent, Math.floor((limit * (windowMs + (toMs - fromMs) + 1)) / windowMs)),
  };
}
