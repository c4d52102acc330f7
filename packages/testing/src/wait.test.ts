import { describe, expect, it } from 'vitest';
import { waitUntil } from './wait.js';

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
