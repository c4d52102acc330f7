import { describe, expect, it } from 'vitest';
import { memoryHousekeeping } from '@petrel/testing';
import { runHousekeeping } from './run-housekeeping.js';

const DAY = 86_400_000;
const NOW = 1_800_000_000_000;

describe('runHousekeeping', () => {
  it('removes the ids of emails older than the retention from every team, and only those', async () => {
    const hk = memoryHousekeeping(NOW);
    hk.listings
      .add('t1', 'expired', NOW - 31 * DAY)
      .add('t1', 'at-cutoff', NOW - 30 * DAY)
      .add('t1', 'recent', NOW - DAY)
      .add('t2', 'expired-too', NOW - 40 * DAY)
      .addTeam('t3');

    const result = await runHousekeeping(hk.ports, { retentionMs: 30 * DAY });

    expect(result).toEqual({ trimmed: 2 });
    expect(hk.listings.ids('t1')).toEqual(['at-cutoff', 'recent']);
    expect(hk.listings.ids('t2')).toEqual([]);
    expect(hk.observer.trims).toEqual([2]);
  });

  it('reports nothing trimmed when nothing expired, and is idempotent', async () => {
    const hk = memoryHousekeeping(NOW);
    hk.listings.add('t1', 'old', NOW - 31 * DAY);
    await runHousekeeping(hk.ports, { retentionMs: 30 * DAY });
    expect(await runHousekeeping(hk.ports, { retentionMs: 30 * DAY })).toEqual({ trimmed: 0 });
    expect(hk.observer.trims).toEqual([1]);
  });

  it('reports every queue count as a gauge, including zeros', async () => {
    const hk = memoryHousekeeping(NOW);
    hk.queues.current = { send: { waiting: 3, delayed: 0 }, broadcast: { waiting: 7, active: 2 } };
    await runHousekeeping(hk.ports, { retentionMs: DAY });
    expect(Object.fromEntries(hk.observer.jobs)).toEqual({
      'send:waiting': 3,
      'send:delayed': 0,
      'broadcast:waiting': 7,
      'broadcast:active': 2,
    });
  });

  it('fails the round when a listing cannot be trimmed (the caller logs it and tries next time)', async () => {
    const hk = memoryHousekeeping(NOW);
    hk.listings.add('t1', 'old', NOW - 2 * DAY);
    hk.listings.failing.add('t1');
    await expect(runHousekeeping(hk.ports, { retentionMs: DAY })).rejects.toThrow(/unavailable/);
    hk.listings.failing.clear();
    expect(await runHousekeeping(hk.ports, { retentionMs: DAY })).toEqual({ trimmed: 1 });
  });
});
