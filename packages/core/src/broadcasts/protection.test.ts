import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROTECTION_THRESHOLDS as T,
  describeBreach,
  protectionBreach,
  thresholdsInForce,
  type ProtectionCounts,
} from './protection.js';

const counts = (sent: number, hardBounced = 0, complained = 0): ProtectionCounts => ({
  sent,
  hardBounced,
  complained,
});

describe('protectionBreach', () => {
  it('judges nothing below the minimum sample, however bad the rates', () => {
    expect(protectionBreach(counts(T.minSample - 1, T.minSample - 1, T.minSample - 1), T)).toBeNull();
    expect(protectionBreach(counts(0, 5, 5), T)).toBeNull();
  });

  it.each([
    // 500 sent: 1 complaint is 0.2 %, 2 are 0.4 %
    ['complaint_rate', counts(500, 0, 2), 0.004, 0.003, 500],
    ['hard_bounce_rate', counts(1000, 51, 0), 0.051, 0.05, 1000],
  ] as const)(
    'pauses on the %s once it goes over its default threshold',
    (reason, c, rate, threshold, sent) => {
      expect(protectionBreach(c, T)).toEqual({ reason, rate, threshold, sent });
      expect(protectionBreach(counts(500, 0, 1), T)).toBeNull();
    },
  );

  it('a rate exactly at the threshold is within it (the guidance says "above")', () => {
    expect(protectionBreach(counts(1000, 0, 3), T)).toBeNull();
    expect(protectionBreach(counts(1000, 50, 0), T)).toBeNull();
  });

  it('names the complaint rate first when both are over', () => {
    expect(protectionBreach(counts(1000, 100, 10), T)?.reason).toBe('complaint_rate');
  });

  it('follows the team thresholds given, not the defaults', () => {
    const strict = { complaintRate: 0.001, hardBounceRate: 0.02, minSample: 10 };
    expect(protectionBreach(counts(10, 0, 1), strict)?.reason).toBe('complaint_rate');
    expect(protectionBreach(counts(100, 3, 0), strict)?.reason).toBe('hard_bounce_rate');
    expect(protectionBreach(counts(100, 2, 0), strict)).toBeNull();
  });
});

describe('describeBreach', () => {
  it('says which rate, its value, the sample and the threshold', () => {
    expect(describeBreach({ reason: 'complaint_rate', rate: 0.004, threshold: 0.003, sent: 500 })).toBe(
      "complaint rate 0.4 % over 500 sent emails exceeds the team's threshold of 0.3 %",
    );
    expect(describeBreach({ reason: 'hard_bounce_rate', rate: 0.1, threshold: 0.05, sent: 20 })).toBe(
      "hard-bounce rate 10 % over 20 sent emails exceeds the team's threshold of 5 %",
    );
  });
});

describe('thresholdsInForce', () => {
  const deployment = { complaintRate: 0.003, hardBounceRate: 0.05, minSample: 500 };

  it("each of the team's own thresholds over the deployment's; null falls back", () => {
    const none = { complaintRate: null, hardBounceRate: null, minSample: null };
    expect(thresholdsInForce(none, deployment)).toEqual(deployment);
    expect(thresholdsInForce({ ...none, complaintRate: 0.001, minSample: 50 }, deployment)).toEqual({
      complaintRate: 0.001,
      hardBounceRate: 0.05,
      minSample: 50,
    });
  });

  it('a team rate of 0 is its own (pause at the first complaint), not a fallback', () => {
    const own = { complaintRate: 0, hardBounceRate: null, minSample: 1 };
    const inForce = thresholdsInForce(own, deployment);
    expect(inForce.complaintRate).toBe(0);
    expect(protectionBreach({ sent: 1, hardBounced: 0, complained: 1 }, inForce)?.reason).toBe(
      'complaint_rate',
    );
  });
});
