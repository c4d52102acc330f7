import { describe, expect, it, vi } from 'vitest';
import { fakeTimersEachTest } from '@petrel/testing';
import { startIntervalLoop } from './interval-loop.js';

/** A promise the test settles by hand. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

/** A 1 s loop whose rounds each wait for `gate`. */
function gatedLoop() {
  const gate = deferred();
  const round = vi.fn(() => gate.promise);
  return { gate, round, loop: startIntervalLoop(round, 1_000, () => undefined) };
}

fakeTimersEachTest();

describe('startIntervalLoop', () => {
  it('runs a round every interval', async () => {
    const round = vi.fn(async () => undefined);
    const loop = startIntervalLoop(round, 1_000, () => undefined);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(round).toHaveBeenCalledTimes(3);
    await loop.stop();
  });

  it('reports a failing round and keeps going', async () => {
    const errors: unknown[] = [];
    let n = 0;
    const round = vi.fn(async () => {
      n += 1;
      if (n === 1) throw new Error('redis down');
    });
    const loop = startIntervalLoop(round, 1_000, (err) => errors.push(err));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(round).toHaveBeenCalledTimes(2);
    expect(errors).toEqual([new Error('redis down')]);
    await loop.stop();
  });

  it('never starts a round while the previous one runs', async () => {
    const { gate, round, loop } = gatedLoop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(round).toHaveBeenCalledTimes(1);
    gate.resolve();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(round).toHaveBeenCalledTimes(2);
    await loop.stop();
  });

  it('stop waits for the running round, then no round starts again', async () => {
    const { gate, round, loop } = gatedLoop();
    await vi.advanceTimersByTimeAsync(1_000);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    gate.resolve();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(round).toHaveBeenCalledTimes(1);
  });

  it('stops at once when no round runs', async () => {
    const round = vi.fn(async () => undefined);
    const loop = startIntervalLoop(round, 1_000, () => undefined);
    await loop.stop();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(round).not.toHaveBeenCalled();
  });
});
