import { describe, expect, it } from 'vitest';
import {
  claimBlockedReason,
  claimRecordFound,
  claimStatus,
  claimView,
  type StoredDomainClaim,
} from './claim-rules.js';

const NOW = Date.parse('2026-01-01T00:00:00Z');
const claim: StoredDomainClaim = {
  id: 'c1',
  name: 'example.com',
  domain_id: 'd1',
  region: 'us-east-1',
  token: 'abc',
  holder_team: 'h',
  holder_domain_id: 'hd',
  step: 'pending',
  found_ms: null,
  blocked_reason: null,
  failure_reason: null,
  created_ms: NOW,
  expires_ms: NOW + 1000,
  completed_ms: null,
};
const quiet = { scheduled: 0, recentSends: 0 };

describe('claimBlockedReason', () => {
  it('blocks for the grace period first, then scheduled emails, then recent sends; else the domain may move', () => {
    const policy = { graceMs: 100 };
    expect(claimBlockedReason(NOW, NOW + 99, quiet, policy)).toBe('grace_period');
    expect(claimBlockedReason(NOW, NOW + 99, { scheduled: 1, recentSends: 1 }, policy)).toBe('grace_period');
    expect(claimBlockedReason(NOW, NOW + 100, { scheduled: 1, recentSends: 1 }, policy)).toBe(
      'pending_scheduled_emails',
    );
    expect(claimBlockedReason(NOW, NOW + 100, { scheduled: 0, recentSends: 3 }, policy)).toBe(
      'recent_owner_activity',
    );
    expect(claimBlockedReason(NOW, NOW + 100, quiet, policy)).toBeNull();
  });
});

describe('claimStatus', () => {
  it('shows the step, blocked, failed or expired as Resend names them', () => {
    expect(claimStatus(claim, NOW)).toBe('pending');
    expect(claimStatus({ ...claim, blocked_reason: 'grace_period' }, NOW)).toBe('blocked');
    expect(claimStatus({ ...claim, failure_reason: 'x' }, NOW)).toBe('failed');
    expect(claimStatus(claim, NOW + 1000)).toBe('expired');
    // a move under way is finished, expiry or not; the ends stay
    expect(claimStatus({ ...claim, step: 'transferring' }, NOW + 5000)).toBe('verified');
    for (const step of ['completed', 'superseded', 'canceled'] as const)
      expect(claimStatus({ ...claim, step }, NOW + 5000)).toBe(step);
  });
});

describe('the record and the view', () => {
  it('finds only the exact value among the TXT answers', () => {
    expect(claimRecordFound(claim, ['v=spf1 -all', ' petrel-domain-claim=abc '])).toBe(true);
    expect(claimRecordFound(claim, ['petrel-domain-claim=abcd', 'petrel-domain-claim=ab'])).toBe(false);
    expect(claimRecordFound(claim, [])).toBe(false);
  });

  it("answers in the SDK's DomainClaim shape; blocked_reason only while blocked", () => {
    expect(claimView({ ...claim, blocked_reason: 'grace_period' }, NOW)).toEqual({
      object: 'domain_claim',
      id: 'c1',
      name: 'example.com',
      status: 'blocked',
      domain_id: 'd1',
      region: 'us-east-1',
      record: { type: 'TXT', name: 'example.com', value: 'petrel-domain-claim=abc', ttl: 'Auto' },
      blocked_reason: 'grace_period',
      failure_reason: null,
      created_at: '2026-01-01T00:00:00.000Z',
      expires_at: '2026-01-01T00:00:01.000Z',
    });
    expect(claimView({ ...claim, blocked_reason: 'grace_period' }, NOW + 1000)).toMatchObject({
      status: 'expired',
      blocked_reason: null,
    });
  });
});
