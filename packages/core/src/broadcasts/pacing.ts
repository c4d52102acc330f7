/**
 * Adaptive pacing of a broadcast fan-out: a broadcast must not delay a password reset. The lanes
 * have their own queues, workers and SMTP pools, so what a fan-out still takes from transactional
 * mail is CPU — its own and Redis's (every contact is a record, a timeline, listings and a
 * BullMQ job written in bursts of a page). So before each page the fan-out reads how busy the
 * transactional lane is (its jobs waiting and running, FanoutPacer.pressure) and this rule turns
 * that into the next page's size and a pause before it:
 *
 *  - at or below `idleAt` jobs the lane keeps up: full speed (the full page, no pause);
 *  - from there to `busyAt` jobs the page shrinks and the pause grows in proportion;
 *  - at `busyAt` and above: `minPageSize` contacts, then `maxDelayMs` of pause.
 *
 * The pause is bounded and the page never empty, so a fan-out under constant transactional load
 * still makes `minPageSize` contacts per `maxDelayMs` (plus the page's own time) — isolation is
 * not bought by stopping broadcasts — and it is back at full speed on the first page after the
 * lane drains. Pure: the fan-out (fanout.ts) reads the pressure and sleeps.
 */

/** The rule's settings (FANOUT_PACE_* in packages/config); the full page is FANOUT_PAGE_SIZE. */
export interface FanoutPaceRule {
  /** Transactional jobs (waiting + active) at or below which the fan-out runs at full speed. */
  idleAt: number;
  /** Jobs at or above which the fan-out is paced the most. Greater than `idleAt`. */
  busyAt: number;
  /** The page size when paced the most (at least 1). */
  minPageSize: number;
  /** The pause before a page when paced the most, in ms. */
  maxDelayMs: number;
}

/** What the fan-out does next: `full` speed, or `paced` (a smaller page, a pause before it). */
export interface FanoutPace {
  state: 'full' | 'paced';
  /** The transactional jobs the decision was made from. */
  pressure: number;
  pageSize: number;
  delayMs: number;
}

/**
 * How far `pressure` transactional jobs are from `idleAt` (0) to `busyAt` (1), clamped to
 * [0, 1]: the one reading of the lane's pressure that the fan-out's pace and the broadcast
 * lane's concurrency (lane-yield.ts) both scale by.
 */
export function pressureShare(pressure: number, idleAt: number, busyAt: number): number {
  const span = Math.max(1, busyAt - idleAt);
  // a NaN or negative reading (a counter not there yet) is an idle lane, never a stop
  const load = !Number.isNaN(pressure) && pressure > idleAt ? pressure - idleAt : 0;
  return Math.min(1, load / span);
}

/** The pace of the next page for `pressure` transactional jobs waiting or running. */
export function fanoutPace(pressure: number, rule: FanoutPaceRule, fullPageSize: number): FanoutPace {
  const full = Math.max(1, fullPageSize);
  const min = Math.min(full, Math.max(1, rule.minPageSize));
  const f = pressureShare(pressure, rule.idleAt, rule.busyAt);
  if (f === 0) return { state: 'full', pressure, pageSize: full, delayMs: 0 };
  return {
    state: 'paced',
    pressure,
    pageSize: Math.max(min, Math.round(full - f * (full - min))),
    delayMs: Math.round(f * Math.max(0, rule.maxDelayMs)),
  };
}
