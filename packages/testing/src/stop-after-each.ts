import { afterEach } from 'vitest';

/**
 * `start` wrapped so that whatever it starts is stopped after the test that started it (a vitest
 * `afterEach` hook of the calling file), a failed test's too: no server of one test lives on
 * into the next.
 */
export function stopAfterEach<A extends unknown[], T extends { stop(): Promise<void> }>(
  start: (...args: A) => Promise<T>,
): (...args: A) => Promise<T> {
  const started: T[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  return async (...args) => {
    const s = await start(...args);
    started.push(s);
    return s;
  };
}
