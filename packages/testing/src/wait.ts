/** Options of {@link waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /** Says what was awaited, for the timeout error. */
  message?: string;
  /** A throw for which this returns true ends the wait at once instead of counting as "not yet". */
  rethrow?: (err: unknown) => boolean;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `fn` until it returns a truthy value and resolves with that value. A throw counts as
 * "not yet"; the last one is quoted in the timeout error.
 */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 50, message = 'condition', rethrow }: WaitUntilOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      if (rethrow?.(err)) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${message}${cause}`, { cause: lastError });
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}

class StalledError extends Error {}

/** Options of {@link waitWhileProgressing}. */
export interface WaitWhileProgressingOptions extends WaitUntilOptions {
  /** A count that grows while the awaited work advances (emails delivered, jobs done). */
  progress: () => number | Promise<number>;
  /** Give up once `progress` has not moved for this long. */
  stallMs: number;
}

/**
 * Polls `fn` like {@link waitUntil}, but judges liveness instead of speed: it gives up when
 * `progress` has stood still for `stallMs` (the work is stuck), or at `timeoutMs` overall. A
 * backlog that drains slowly on a loaded machine is waited for; one that stopped draining fails.
 */
export async function waitWhileProgressing<T>(
  fn: () => T | Promise<T>,
  {
    progress,
    stallMs,
    timeoutMs = 300_000,
    intervalMs = 250,
    message = 'condition',
  }: WaitWhileProgressingOptions,
): Promise<NonNullable<T>> {
  let last = await progress();
  let movedAt = Date.now();
  return waitUntil(
    async () => {
      const value = await fn();
      if (value) return value;
      const now = await progress();
      if (now !== last) {
        last = now;
        movedAt = Date.now();
      } else if (Date.now() - movedAt > stallMs) {
        throw new StalledError(`${message}: no progress for ${stallMs} ms (progress stuck at ${now})`);
      }
      return value;
    },
    { timeoutMs, intervalMs, message, rethrow: (err) => err instanceof StalledError },
  );
}
