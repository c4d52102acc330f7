/**
 * The one shape time has in core. A use-case that needs the time takes a {@link Clock} port (so a
 * test drives it); a pure rule takes the instant it decides about as epoch milliseconds (`nowMs`).
 */
export interface Clock {
  /** Wall time, epoch milliseconds: Date headers and event times. */
  now(): number;
  /** A monotonic reading in milliseconds, for durations. */
  monotonicMs(): number;
}

/** The process's clocks: `Date.now` for wall time, `performance.now` for durations. */
export const systemClock: Clock = {
  now: () => Date.now(),
  monotonicMs: () => performance.now(),
};
