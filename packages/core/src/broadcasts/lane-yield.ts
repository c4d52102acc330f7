/**
 * The broadcast lane yields its CPU to transactional mail. The lanes have their own queues,
 * workers and SMTP pools, so a broadcast's backlog never sits in front of a password reset; what
 * they still share is the worker process's and Redis's CPU, and a broadcast lane running
 * WORKER_BROADCAST_CONCURRENCY sends at once takes a large part of it. So while transactional
 * jobs wait or run, each worker process lowers its broadcast lane's concurrency by the same
 * reading of the transactional lane the fan-out paces itself by (pacing.ts, `pressureShare`):
 *
 *  - at or below `idleAt` jobs: the full concurrency;
 *  - from there to `busyAt` jobs: lower in proportion;
 *  - at `busyAt` and above: `minConcurrency` (at least 1), so a broadcast keeps draining under
 *    constant transactional load — isolation is not bought by stopping broadcasts.
 *
 * Back to the full concurrency on the first reading after the transactional lane drains. Pure:
 * the worker (apps/worker/src/lane-yield.ts) reads the pressure on an interval and applies it.
 */
import { pressureShare } from './pacing.js';

/** The rule's settings (WORKER_BROADCAST_YIELD_* in packages/config). */
export interface LaneYieldRule {
  /** Transactional jobs (waiting + running) at or below which the broadcast lane runs in full. */
  idleAt: number;
  /** Jobs at or above which the broadcast lane runs `minConcurrency`. Greater than `idleAt`. */
  busyAt: number;
  /** The broadcast lane's concurrency at `busyAt` and above (at least 1: never a stop). */
  minConcurrency: number;
}

/** The broadcast lane's concurrency for now: `full`, or `yielding` to transactional jobs. */
export interface LaneYield {
  state: 'full' | 'yielding';
  /** The transactional jobs the decision was made from. */
  pressure: number;
  concurrency: number;
}

/** The broadcast lane's concurrency while `pressure` transactional jobs wait or run. */
export function broadcastLaneYield(
  pressure: number,
  rule: LaneYieldRule,
  fullConcurrency: number,
): LaneYield {
  const full = Math.max(1, Math.floor(fullConcurrency));
  const min = Math.min(full, Math.max(1, Math.floor(rule.minConcurrency)));
  const f = pressureShare(pressure, rule.idleAt, rule.busyAt);
  if (f === 0) return { state: 'full', pressure, concurrency: full };
  return { state: 'yielding', pressure, concurrency: Math.max(min, Math.round(full - f * (full - min))) };
}
