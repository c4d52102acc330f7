/**
 * Domain claims (Resend's `domains.claims.*`): a team proves control of a domain that another
 * team holds (a verified domain of that name) by publishing a TXT record, and the domain moves
 * to it. Pure rules here: what a claim's status is, when it is blocked and why, its record.
 *
 * A claim lives in the claimant's team, keyed by its placeholder domain (the domain the claim
 * creates there at once, with fresh DKIM keys: the holder's records cannot be reused, Resend's
 * "the domain is recreated under your account with fresh DKIM keys"). Once the TXT record is
 * found, the move waits while any of these holds (Resend's blocked reasons), checked in order:
 *  - `grace_period`: for DOMAIN_CLAIM_GRACE_S after the record was first found, so the holder's
 *    mail in flight goes out and its people can see the claim before the domain goes;
 *  - `pending_scheduled_emails`: the holder has scheduled emails from the domain;
 *  - `recent_owner_activity`: the holder sent from the domain within
 *    DOMAIN_CLAIM_ACTIVITY_WINDOW_S.
 * A claim not completed by `expires_at` (DOMAIN_CLAIM_TTL_S after creation) is `expired`.
 */

/** Resend's claim statuses (the SDK's DomainClaimStatus). */
export const DOMAIN_CLAIM_STATUSES = [
  'pending',
  'verified',
  'completed',
  'blocked',
  'expired',
  'superseded',
  'canceled',
  'failed',
] as const;
export type DomainClaimStatus = (typeof DOMAIN_CLAIM_STATUSES)[number];

/** Resend's blocked reasons (the SDK's DomainClaimBlockedReason). */
export type DomainClaimBlockedReason = 'grace_period' | 'recent_owner_activity' | 'pending_scheduled_emails';

/**
 * Where a claim is in its steps: `pending` until its record is found and nothing blocks it;
 * `transferring` from the decision to move until the holder's domain is gone (a verify that finds
 * it so resumes the move: each step can run twice); then one of the ends.
 */
export type DomainClaimStep = 'pending' | 'transferring' | 'completed' | 'superseded' | 'canceled';

export interface StoredDomainClaim {
  id: string;
  name: string;
  /** The placeholder domain in the claimant's team (the claim's address in the API). */
  domain_id: string;
  region: string;
  /** The secret of the TXT record's value. */
  token: string;
  /** The team and domain the claim takes the name from. */
  holder_team: string;
  holder_domain_id: string;
  step: DomainClaimStep;
  /** When the TXT record was first found (ms), null until then. */
  found_ms: number | null;
  blocked_reason: DomainClaimBlockedReason | null;
  failure_reason: string | null;
  created_ms: number;
  expires_ms: number;
  completed_ms: number | null;
}

export interface DomainClaimPolicy {
  graceMs: number;
  activityWindowMs: number;
  ttlMs: number;
}

/** The prefix of the TXT record's value. */
export const CLAIM_TXT_PREFIX = 'petrel-domain-claim=';

/** The TXT record to publish: at the domain itself, as Resend's (`name` is the domain). */
export function claimRecord(claim: Pick<StoredDomainClaim, 'name' | 'token'>) {
  return {
    type: 'TXT' as const,
    name: claim.name,
    value: `${CLAIM_TXT_PREFIX}${claim.token}`,
    ttl: 'Auto' as const,
  };
}

/** Whether the TXT answers of the domain hold the claim's record (surrounding spaces ignored). */
export const claimRecordFound = (
  claim: Pick<StoredDomainClaim, 'name' | 'token'>,
  txt: readonly string[],
): boolean => txt.some((v) => v.trim() === claimRecord(claim).value);

/** The status a claim shows at `nowMs`. */
export function claimStatus(claim: StoredDomainClaim, nowMs: number): DomainClaimStatus {
  if (claim.step === 'completed' || claim.step === 'superseded' || claim.step === 'canceled')
    return claim.step;
  if (claim.step === 'transferring') return 'verified';
  if (nowMs >= claim.expires_ms) return 'expired';
  if (claim.failure_reason !== null) return 'failed';
  return claim.blocked_reason !== null ? 'blocked' : 'pending';
}

/** What the holder does with the domain, as the claim's check reads it. */
export interface HolderActivity {
  /** Emails of the holder from the domain scheduled and not sent yet. */
  scheduled: number;
  /** Emails of the holder from the domain accepted within the activity window (scheduled ones aside). */
  recentSends: number;
}

/** Why a found claim must wait, or null when the domain may move now (order: see the header). */
export function claimBlockedReason(
  foundMs: number,
  nowMs: number,
  holder: HolderActivity,
  policy: Pick<DomainClaimPolicy, 'graceMs'>,
): DomainClaimBlockedReason | null {
  if (nowMs < foundMs + policy.graceMs) return 'grace_period';
  if (holder.scheduled > 0) return 'pending_scheduled_emails';
  if (holder.recentSends > 0) return 'recent_owner_activity';
  return null;
}

/** A claim as the API answers it (the SDK's DomainClaim, `object: 'domain_claim'`). */
export function claimView(claim: StoredDomainClaim, nowMs: number) {
  const status = claimStatus(claim, nowMs);
  return {
    object: 'domain_claim' as const,
    id: claim.id,
    name: claim.name,
    status,
    domain_id: claim.domain_id,
    region: claim.region,
    record: claimRecord(claim),
    blocked_reason: status === 'blocked' ? claim.blocked_reason : null,
    failure_reason: status === 'failed' ? claim.failure_reason : null,
    created_at: new Date(claim.created_ms).toISOString(),
    expires_at: new Date(claim.expires_ms).toISOString(),
  };
}
