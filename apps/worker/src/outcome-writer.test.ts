import { describe, expect, it } from 'vitest';
import { emailToDeliver, MemoryDeliveryRecords } from '@petrel/testing';
import { outcomeWriter } from './outcome-writer.js';

const unavailable = () => new Error('Connection is closed.');

/** A store whose first `failures` writes fail with `error()`, and a clock the sleeps move. */
function flaky(failures: number, error: () => Error = unavailable) {
  const store = new MemoryDeliveryRecords().put(emailToDeliver());
  let left = failures;
  let calls = 0;
  const setFields = store.setFields.bind(store);
  store.setFields = (...args) => {
    calls++;
    return left-- > 0 ? Promise.reject(error()) : setFields(...args);
  };
  let t = 0;
  const sleeps: number[] = [];
  const opts = {
    windowMs: 10_000,
    clock: { now: () => t },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
  };
  return { store, opts, sleeps, calls: () => calls };
}

describe('outcomeWriter', () => {
  it('rides out a Redis outage with a doubling pause (capped at 2 s)', async () => {
    const { store, opts, sleeps } = flaky(7);
    await outcomeWriter(store, opts).setFields('team-1', emailToDeliver().id, { attempts: '1' });
    expect(sleeps).toEqual([100, 200, 400, 800, 1600, 2000, 2000]);
    expect(store.get('team-1', emailToDeliver().id)?.attempts).toBe(1);
  });

  it('gives up once the outage outlasts the window', async () => {
    const { store, opts, sleeps } = flaky(Infinity);
    await expect(outcomeWriter(store, opts).setFields('team-1', 'x', {})).rejects.toThrow(
      'Connection is closed.',
    );
    expect(sleeps.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(10_000);
  });

  it('throws any other error at once', async () => {
    const { store, opts, calls } = flaky(1, () => new Error('WRONGTYPE Operation against a key'));
    await expect(outcomeWriter(store, opts).setFields('team-1', 'x', {})).rejects.toThrow('WRONGTYPE');
    expect(calls()).toBe(1);
  });
});
