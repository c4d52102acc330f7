import { describe, expect, it } from 'vitest';
import { getUsage, limitInForce, usagePeriods, usageReport, usageResets, type UsageCounts } from './usage.js';

const counts: UsageCounts = {
  emailsSentToday: 5,
  emailsReceivedToday: 2,
  emailsSentMonth: 50,
  emailsReceivedMonth: 20,
  quotaUsedToday: 4,
  contacts: 7,
  segments: 1,
  broadcasts: 3,
  domains: 2,
  automationRunsMonth: 9,
};
const NOW = Date.UTC(2026, 1, 28, 23, 59, 30); // the last day of February 2026

describe('usage', () => {
  it('names the UTC day and month and when each resets', () => {
    expect(usagePeriods(NOW)).toEqual({ day: '2026-02-28', month: '2026-02' });
    expect(usageResets(NOW)).toEqual({ day: '2026-03-01T00:00:00.000Z', month: '2026-03-01T00:00:00.000Z' });
    expect(usageResets(Date.UTC(2026, 11, 31, 12))).toEqual({
      day: '2027-01-01T00:00:00.000Z',
      month: '2027-01-01T00:00:00.000Z',
    });
  });

  it('takes the team limit over the default, 0 switching it off, null when none applies', () => {
    expect(limitInForce(null, 0)).toBeNull();
    expect(limitInForce(null, 100)).toBe(100);
    expect(limitInForce(5, 100)).toBe(5);
    expect(limitInForce(0, 100)).toBeNull();
  });

  it("shows the quota's own counter as daily use when a quota applies, else the emails sent", () => {
    const withQuota = usageReport(counts, { dailyEmails: 10, requestsPerSecond: 2 }, NOW);
    expect(withQuota.emails.daily).toEqual({
      used: 4,
      limit: 10,
      sent: 5,
      received: 2,
      resets_at: '2026-03-01T00:00:00.000Z',
    });
    expect(withQuota.rate_limit).toEqual({ limit: 2, duration: '1s' });
    const without = usageReport(counts, { dailyEmails: null, requestsPerSecond: null }, NOW);
    expect(without.emails.daily).toMatchObject({ used: 5, limit: null });
    expect(without).toMatchObject({
      object: 'usage',
      emails: { monthly: { used: 50, limit: null, sent: 50, received: 20 } },
      contacts: { used: 7, limit: null },
      segments: { used: 1, limit: null },
      broadcasts: { used: 3, limit: null },
      domains: { used: 2, limit: null },
      automation_runs: { used: 9, limit: null, resets_at: '2026-03-01T00:00:00.000Z' },
      ai_credits: { used: 0, limit: null, next_increase_at: null },
      rate_limit: { limit: null },
    });
  });

  it('reads the limits from the team with the deployment defaults behind them', async () => {
    const report = await getUsage(
      {
        reader: { counts: async () => counts, ownLimits: async () => ({ rps: null, dailyQuota: 0 }) },
        defaults: { rps: 10, dailyQuota: 1000 },
        clock: { now: () => NOW },
      },
      'team',
    );
    expect(report.emails.daily.limit).toBeNull();
    expect(report.rate_limit.limit).toBe(10);
  });
});
