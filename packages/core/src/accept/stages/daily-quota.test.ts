import { describe, expect, it } from 'vitest';
import { emailContent } from '@petrel/testing';
import type { DailyQuotaAnswer, DailyQuotaCounter } from '../../ratelimit/daily-quota.js';
import { dailyQuota } from './daily-quota.js';
import { prepareWith } from './stage.js';

/** Counters by team and day, with per-team quotas over a default: the store's rule in memory. */
class Counter implements DailyQuotaCounter {
  readonly used = new Map<string, number>();
  readonly quotas = new Map<string, number>();
  async take(teamId: string, day: string, count: number, defaultQuota: number): Promise<DailyQuotaAnswer> {
    const limit = this.quotas.get(teamId) ?? defaultQuota;
    if (limit <= 0) return { limit: 0 };
    const key = `${teamId}/${day}`;
    const used = this.used.get(key) ?? 0;
    if (used + count > limit) return { limit, used, admitted: false };
    this.used.set(key, used + count);
    return { limit, used: used + count, admitted: true };
  }
}

const NOW = Date.UTC(2026, 10, 23, 18);
const emails = (n: number) => Array.from({ length: n }, (_, index) => ({ index, email: emailContent() }));

describe('dailyQuota stage', () => {
  it.each([
    { name: 'no quota anywhere: everything passes', team: undefined, def: 0, n: 5, passed: 5 },
    { name: 'the default quota', team: undefined, def: 3, n: 5, passed: 3 },
    { name: "the team's own quota over the default", team: 4, def: 1, n: 5, passed: 4 },
  ])('$name', async ({ team, def, n, passed }) => {
    const counter = new Counter();
    if (team !== undefined) counter.quotas.set('t1', team);
    const stage = dailyQuota({ counter, defaultQuota: def, clock: { now: () => NOW } });
    const out = await prepareWith([stage]).prepare('t1', emails(n), 'batch');
    expect(out.emails).toHaveLength(passed);
    expect(out.errors).toHaveLength(n - passed);
    for (const e of out.errors) {
      expect(e.name).toBe('daily_quota_exceeded');
      expect(e.message).toMatch(/Daily sending quota reached: .* per day \(UTC\); it resets in 21600 s/);
    }
  });

  it('counts per UTC day and per team', async () => {
    const counter = new Counter();
    let at = NOW;
    const stage = dailyQuota({ counter, defaultQuota: 2, clock: { now: () => at } });
    const prep = prepareWith([stage]);
    expect((await prep.prepare('t1', emails(3), 'batch')).emails).toHaveLength(2);
    expect((await prep.prepare('t2', emails(1), 'single')).emails).toHaveLength(1);
    at = NOW + 6 * 3600_000; // the next UTC day
    expect((await prep.prepare('t1', emails(2), 'batch')).emails).toHaveLength(2);
    expect([...counter.used]).toEqual([
      ['t1/2026-11-23', 2],
      ['t2/2026-11-23', 1],
      ['t1/2026-11-24', 2],
    ]);
  });

  it('counts no email a stage before it refused', async () => {
    const counter = new Counter();
    const refuseAll = async () => ({ refused: { message: 'to: nope' } });
    const stage = dailyQuota({ counter, defaultQuota: 10, clock: { now: () => NOW } });
    await prepareWith([refuseAll, stage]).prepare('t1', emails(3), 'batch');
    expect(counter.used.size).toBe(0);
  });
});
