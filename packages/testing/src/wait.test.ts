import { describe, expect, it } from 'vitest';
import { waitUntil, waitWhileProgressing } from './wait.js';

describe('waitUntil', () => {
  it('resolves with the first truthy value, treating throws as not yet', async () => {
    let n = 0;
    const value = await waitUntil(
      () => {
        n += 1;
        if (n < 3) throw new Error('not yet');
        return n >= 4 ? { n } : 0;
      },
      { intervalMs: 1 },
    );
    expect(value).toEqual({ n: 4 });
  });

  it('times out with the message and the last error', async () => {
    await expect(
      waitUntil(
        () => {
          throw new Error('still down');
        },
        { timeoutMs: 30, intervalMs: 5, message: 'redis' },
      ),
    ).rejects.toThrow(/waiting for redis \(last error: still down\)/);
  });
});

describe('waitWhileProgressing', () => {
  it('waits past stallMs as long as progress moves', async () => {
    let done = 0;
    const started = Date.now();
    const value = await waitWhileProgressing(() => done >= 8 && 'drained', {
      progress: () => (Date.now() - started > 10 * (done + 1) ? ++done : done),
      stallMs: 40,
      intervalMs: 5,
    });
    expect(value).toBe('drained');
  });

  it('gives up once progress stands still for stallMs, saying where it stopped', async () => {
    let polls = 0;
    await expect(
      waitWhileProgressing(() => false, {
        progress: () => Math.min(++polls, 3),
        stallMs: 30,
        timeoutMs: 5_000,
        intervalMs: 5,
        message: 'the backlog',
      }),
    ).rejects.toThrow('the backlog: no progress for 30 ms (progress stuck at 3)');
  });
});
