/**
 * When to retry a soft-failed send. A fixed ladder, stretched by a time scale (tests
 * run at 0.001), with upward-only jitter so no attempt is ever earlier than its scheduled time,
 * and a server's "try again in N" hint honoured when it asks for longer.
 */

/**
 * The ladder of waits between attempts, in seconds, before it is cut to a window:
 * 1 min, 5 min, 15 min, 30 min, 1 h, 2 h, 4 h, 6 h, 8 h, 10 h, 12 h (43 h 51 min in total).
 */
export const RETRY_LADDER_S: readonly number[] = [
  60, 300, 900, 1800, 3600, 7200, 14400, 21600, 28800, 36000, 43200,
];

/** Temporary failures are retried for 24 h by default (configurable from 5 min to 5 days). */
export const DEFAULT_RETRY_WINDOW_S = 24 * 60 * 60;
export const MIN_RETRY_WINDOW_S = 5 * 60;
export const MAX_RETRY_WINDOW_S = 5 * 24 * 60 * 60;
/** Default jitter: each wait is stretched by up to 20 %. */
export const DEFAULT_RETRY_JITTER = 0.2;

/**
 * The ladder cut (or extended with its last step) so that the waits add up to exactly `windowS`:
 * steps are taken while they fit, the step that would cross the window is shortened to end on it,
 * and a window longer than the ladder repeats the last step. The last attempt therefore happens
 * at the end of the window (before jitter), and then the email expires.
 */
export function retryScheduleForWindow(
  windowS: number,
  ladder: readonly number[] = RETRY_LADDER_S,
): number[] {
  if (!(windowS > 0) || ladder.length === 0 || ladder.some((s) => !(s > 0))) {
    throw new RangeError('retry window and ladder steps must be positive');
  }
  const out: number[] = [];
  let total = 0;
  for (let i = 0; total < windowS; i++) {
    const step = ladder[Math.min(i, ladder.length - 1)]!;
    const cut = Math.min(step, windowS - total);
    out.push(cut);
    total += cut;
  }
  return out;
}

/**
 * The default schedule: {@link RETRY_LADDER_S} cut to the 24 h window. Waits after attempt 1..10:
 *
 * | after attempt | wait    | attempt at (from the first) |
 * |---------------|---------|-----------------------------|
 * | 1             | 1 min   | 1 min                       |
 * | 2             | 5 min   | 6 min                       |
 * | 3             | 15 min  | 21 min                      |
 * | 4             | 30 min  | 51 min                      |
 * | 5             | 1 h     | 1 h 51 min                  |
 * | 6             | 2 h     | 3 h 51 min                  |
 * | 7             | 4 h     | 7 h 51 min                  |
 * | 8             | 6 h     | 13 h 51 min                 |
 * | 9             | 8 h     | 21 h 51 min                 |
 * | 10            | 2 h 9 m | 24 h (the window's end)     |
 *
 * 11 attempts; after the 11th fails the email bounces (`email.bounced`, type Temporary).
 * Jitter adds up to 20 % to each wait, so the whole run takes 24 h to 28 h 48 min.
 */
export const DEFAULT_RETRY_SCHEDULE_S: readonly number[] = retryScheduleForWindow(DEFAULT_RETRY_WINDOW_S);

export interface RetryDelayOptions {
  /** Multiplies every wait (and the hint): 1 in production, e.g. 0.001 in tests. */
  scale: number;
  /** Up to this fraction is added to each wait (0.2 → +0..20 %); never subtracted. */
  jitter: number;
  /** The server's "try again in N" hint, unscaled; the wait is at least this long. */
  retryAfterMs?: number;
  /** Uniform in [0, 1); injectable for tests. Defaults to Math.random. */
  random?: () => number;
}

/**
 * Milliseconds to wait before the next attempt, after attempt number `attempt` (1-based: 1 is
 * the first send) soft-failed; `null` when the schedule is exhausted and the email expires.
 * The wait is `max(schedule[attempt-1] × scale × (1 + jitter × random), retryAfterMs × scale)`.
 */
export function computeRetryDelay(
  attempt: number,
  schedule: readonly number[],
  opts: RetryDelayOptions,
): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError('attempt must be an integer ≥ 1');
  if (!(opts.scale > 0)) throw new RangeError('scale must be positive');
  if (!(opts.jitter >= 0 && opts.jitter <= 1)) throw new RangeError('jitter must be within [0, 1]');
  const step = schedule[attempt - 1];
  if (step === undefined) return null;
  const random = opts.random ?? Math.random;
  const scheduled = step * 1000 * opts.scale * (1 + opts.jitter * random());
  const hint = opts.retryAfterMs !== undefined && opts.retryAfterMs > 0 ? opts.retryAfterMs * opts.scale : 0;
  return Math.round(Math.max(scheduled, hint));
}
