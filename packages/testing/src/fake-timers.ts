import { afterEach, beforeEach, vi } from 'vitest';

/**
 * Fake timers in every test of the calling file (vitest hooks), the real ones back after each
 * test, a failed one's too: a test drives time with `vi.advanceTimersByTime*` and no fake clock
 * leaks into the next file's tests.
 */
export function fakeTimersEachTest(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}
