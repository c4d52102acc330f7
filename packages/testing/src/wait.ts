/** Options of {@link waitUntil}. */
export interface WaitUntilOptions {
  /** Give up after this long (default 10 s). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /** Says what was awaited, for the timeout error. */
  message?: string;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `fn` until it returns a truthy value and resolves with that value. A throw counts as
 * "not yet"; the last one is quoted in the timeout error.
 */
export async function waitUntil<T>(
  fn: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 50, message = 'condition' }: WaitUntilOptions = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${message}${cause}`, { cause: lastError });
    }
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
