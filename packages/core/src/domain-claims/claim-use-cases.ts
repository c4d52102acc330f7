/**
 * Use-cases of domain claims: create (POST /domains/claim), get (GET /domains/:id/claim) and
 * verify (POST /domains/:id/claim/verify). Rules in claim-rules.ts.
 *
 * The claimant's and the holder's data live in two teams, so in two hash slots on a cluster: no
 * script may touch both. The move is therefore a sequence of one-team steps, each idempotent and
 * ordered so that a crash between two of them is finished by the next verify:
 *  1. (claimant) the claim is marked `transferring` once the record is found and nothing blocks;
 *  2. (holder) the holder's domain is deleted — if it is still the one the claim names — with
 *     its `domain.deleted` event in the same script (the holder is told); gone already: nothing;
 *  3. (claimant) the claim is `completed`.
 * A verify of a `transferring` claim runs 2 and 3 again, without looking at DNS or the holder's
 * activity (the decision was taken). The placeholder domain holds the claimant's fresh keys from
 * the start, so nothing is written to it at the end.
 */
import { validationError } from '@petrel/contracts';
import type { DkimSettings, DomainContext } from '../domains/domain-use-cases.js';
import { createDomain, domainEventData } from '../domains/domain-use-cases.js';
import type { CreateDomainInput } from '../domains/domain-schemas.js';
import type { DnsPort } from '../domains/verify-domain.js';
import {
  claimBlockedReason,
  claimRecordFound,
  claimStatus,
  claimView,
  type DomainClaimPolicy,
  type HolderActivity,
  type StoredDomainClaim,
} from './claim-rules.js';
import { found } from '../kernel/found.js';

export interface DomainClaimsPort {
  get(teamId: string, domainId: string): Promise<StoredDomainClaim | null>;
  save(teamId: string, claim: StoredDomainClaim): Promise<void>;
  /** Another team's verified domain of this name (the holder a claim takes it from), or null. */
  holder(name: string, exceptTeamId: string): Promise<{ teamId: string; domainId: string } | null>;
  /** What the holder does with the domain `name` (see HolderActivity), from `sinceMs`. */
  activity(teamId: string, name: string, sinceMs: number, nowMs: number): Promise<HolderActivity>;
}

export interface DomainClaimContext extends DomainContext {
  claims: DomainClaimsPort;
  dns: DnsPort;
  dkim: DkimSettings;
  policy: DomainClaimPolicy;
  /** A new claim id and the secret of its record. */
  ids: { newId(): string; token(): string };
}

export type DomainClaimView = ReturnType<typeof claimView>;

const OPEN = new Set(['pending', 'blocked', 'verified']);

/** Starts a claim (201), or answers the claimant's open claim of that name unchanged (200). */
export async function createDomainClaim(
  cmd: { teamId: string; input: CreateDomainInput },
  ctx: DomainClaimContext,
): Promise<{ created: boolean; claim: DomainClaimView }> {
  const nowMs = ctx.clock.now();
  const name = cmd.input.name;
  const own = await ctx.domains.byName(cmd.teamId, name);
  if (own) {
    const open = await ctx.claims.get(cmd.teamId, own.id);
    if (open && OPEN.has(claimStatus(open, nowMs))) return { created: false, claim: claimView(open, nowMs) };
    // the team holds the name already (a domain of its own, or a claim that ended)
    throw validationError(`name: the team has a domain named ${name} already`, 403);
  }
  const holder = await ctx.claims.holder(name, cmd.teamId);
  if (!holder) {
    throw validationError(
      `name: no other team has verified ${name}; add it with POST /domains instead of claiming it`,
    );
  }
  // the placeholder: an ordinary domain of the claimant with fresh keys (domain.created)
  const placeholder = await createDomain({ teamId: cmd.teamId, input: cmd.input }, ctx);
  const claim: StoredDomainClaim = {
    id: ctx.ids.newId(),
    name,
    domain_id: placeholder.id,
    region: placeholder.region,
    token: ctx.ids.token(),
    holder_team: holder.teamId,
    holder_domain_id: holder.domainId,
    step: 'pending',
    found_ms: null,
    blocked_reason: null,
    failure_reason: null,
    created_ms: nowMs,
    expires_ms: nowMs + ctx.policy.ttlMs,
    completed_ms: null,
  };
  await ctx.claims.save(cmd.teamId, claim);
  return { created: true, claim: claimView(claim, nowMs) };
}

async function claimOf(
  teamId: string,
  domainId: string,
  claims: DomainClaimsPort,
): Promise<StoredDomainClaim> {
  return found(claims.get(teamId, domainId), 'Domain claim');
}

export async function getDomainClaim(
  cmd: { teamId: string; domainId: string },
  ctx: Pick<DomainClaimContext, 'claims' | 'clock'>,
): Promise<DomainClaimView> {
  return claimView(await claimOf(cmd.teamId, cmd.domainId, ctx.claims), ctx.clock.now());
}

/** Looks the record up and moves the claim as far as it may go now (see the header). */
export async function verifyDomainClaim(
  cmd: { teamId: string; domainId: string },
  ctx: DomainClaimContext,
): Promise<DomainClaimView> {
  let claim = await claimOf(cmd.teamId, cmd.domainId, ctx.claims);
  const nowMs = ctx.clock.now();
  const status = claimStatus(claim, nowMs);
  if (!OPEN.has(status)) return claimView(claim, nowMs);
  const save = async (next: StoredDomainClaim): Promise<DomainClaimView> => {
    await ctx.claims.save(cmd.teamId, next);
    return claimView(next, nowMs);
  };
  // the claimant deleted the placeholder: the claim is given up
  if (!(await ctx.domains.get(cmd.teamId, claim.domain_id))) return save({ ...claim, step: 'canceled' });

  if (claim.step === 'pending') {
    const answer = await ctx.dns.txt(claim.name);
    if (answer.kind !== 'found' || !claimRecordFound(claim, answer.values)) {
      return save({ ...claim, blocked_reason: null });
    }
    const foundMs = claim.found_ms ?? nowMs;
    const holder = await ctx.claims.holder(claim.name, cmd.teamId);
    // another team than the one the claim names holds the domain now (it claimed it meanwhile)
    if (holder && (holder.teamId !== claim.holder_team || holder.domainId !== claim.holder_domain_id)) {
      return save({ ...claim, found_ms: foundMs, step: 'superseded' });
    }
    if (holder) {
      const activity = await ctx.claims.activity(
        holder.teamId,
        claim.name,
        nowMs - ctx.policy.activityWindowMs,
        nowMs,
      );
      const blocked = claimBlockedReason(foundMs, nowMs, activity, ctx.policy);
      if (blocked) return save({ ...claim, found_ms: foundMs, blocked_reason: blocked });
    }
    claim = { ...claim, found_ms: foundMs, blocked_reason: null, step: 'transferring' };
    await ctx.claims.save(cmd.teamId, claim);
  }
  // step 2: the holder's domain goes, with its domain.deleted event (a no-op once it is gone)
  const held = await ctx.domains.get(claim.holder_team, claim.holder_domain_id);
  if (held && held.name === claim.name) {
    await ctx.domains.remove(claim.holder_team, claim.holder_domain_id, domainEventData(ctx.targets));
  }
  return save({ ...claim, step: 'completed', completed_ms: nowMs });
}
