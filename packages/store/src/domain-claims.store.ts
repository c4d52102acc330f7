/**
 * Domain claims (core's domain-claims/): one hash per claim in the CLAIMANT's team, keyed by its
 * placeholder domain (`Keys.domainClaim`), written whole by one HSET (a single key: any slot).
 * What a claim reads of the holder — its domain of the name, its scheduled and recent emails —
 * is read in the holder's team, each command alone: no command or script spans the two teams
 * (their slots differ on a cluster), the use-case orders the one-team steps (see its header).
 *
 * Finding the holder walks the teams (`Keys.teams`, one `HGET` + `HGETALL` per team, never a
 * pipeline across teams): a claim is rare and this needs no global index of names kept beside
 * every domain write. The holder's activity is bounded reads: the first
 * {@link ACTIVITY_SCAN_LIMIT} scheduled emails and newest emails of the window.
 */
import {
  fromDomain,
  type DomainClaimBlockedReason,
  type DomainClaimStep,
  type DomainClaimsPort,
  type HolderActivity,
  type StoredDomainClaim,
  idKey,
} from '@petrel/core';
import type { DomainsStore } from './domains.store.js';
import type { EmailsStore } from './emails.store.js';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';

/** How many of the holder's scheduled emails, and of its newest emails, a check reads at most. */
export const ACTIVITY_SCAN_LIMIT = 500;
/** Teams looked at concurrently when finding a holder. */
const TEAM_BATCH = 50;

export class DomainClaimsStore implements DomainClaimsPort {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    private readonly domains: DomainsStore,
    private readonly emails: EmailsStore,
  ) {}

  async get(teamId: string, domainId: string): Promise<StoredDomainClaim | null> {
    const r = await this.redis.hgetall(this.keys.domainClaim(teamId, idKey(domainId)));
    return r.id ? toClaim(r) : null;
  }

  async save(teamId: string, claim: StoredDomainClaim): Promise<void> {
    const fields: Record<string, string> = {};
    for (const [k, v] of Object.entries(claim)) fields[k] = v === null ? '' : String(v);
    await this.redis.hset(this.keys.domainClaim(teamId, claim.domain_id), fields);
  }

  async holder(name: string, exceptTeamId: string): Promise<{ teamId: string; domainId: string } | null> {
    const teams = (await this.redis.smembers(this.keys.teams())).filter((t) => t !== exceptTeamId);
    const found: { teamId: string; domainId: string; created: string }[] = [];
    for (let i = 0; i < teams.length; i += TEAM_BATCH) {
      const batch = teams.slice(i, i + TEAM_BATCH);
      const domains = await Promise.all(batch.map((t) => this.domains.byName(t, name)));
      domains.forEach((d, j) => {
        if (d && (d.status === 'verified' || d.status === 'partially_verified'))
          found.push({ teamId: batch[j]!, domainId: d.id, created: d.created_at });
      });
    }
    // the team that verified the name first holds it (Petrel lets several teams verify a name)
    found.sort((a, b) => a.created.localeCompare(b.created));
    return found[0] ? { teamId: found[0].teamId, domainId: found[0].domainId } : null;
  }

  async activity(teamId: string, name: string, sinceMs: number, nowMs: number): Promise<HolderActivity> {
    const [scheduledIds, recentIds] = await Promise.all([
      // due later than now: scheduled (the unfinished index scores an email by its due time)
      this.redis.zrangebyscore(
        this.keys.unfinishedEmails(teamId, 'send'),
        `(${nowMs}`,
        '+inf',
        'LIMIT',
        0,
        ACTIVITY_SCAN_LIMIT,
      ),
      this.redis.zrevrangebyscore(this.keys.emails(teamId), '+inf', sinceMs, 'LIMIT', 0, ACTIVITY_SCAN_LIMIT),
    ]);
    const [scheduled, recent] = await Promise.all([
      this.emails.getMany(teamId, scheduledIds),
      this.emails.getMany(teamId, recentIds),
    ]);
    const fromName = (from: string) => fromDomain(from) === name;
    return {
      scheduled: scheduled.filter((e) => e.status === 'scheduled' && fromName(e.content.from)).length,
      recentSends: recent.filter(
        (e) => e.status !== 'scheduled' && e.status !== 'canceled' && fromName(e.content.from),
      ).length,
    };
  }
}

function toClaim(r: Record<string, string>): StoredDomainClaim {
  const num = (v: string | undefined): number | null => (v ? Number(v) : null);
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    domain_id: r.domain_id ?? '',
    region: r.region ?? 'us-east-1',
    token: r.token ?? '',
    holder_team: r.holder_team ?? '',
    holder_domain_id: r.holder_domain_id ?? '',
    step: (r.step || 'pending') as DomainClaimStep,
    found_ms: num(r.found_ms),
    blocked_reason: (r.blocked_reason || null) as DomainClaimBlockedReason | null,
    failure_reason: r.failure_reason || null,
    created_ms: Number(r.created_ms ?? 0),
    expires_ms: Number(r.expires_ms ?? 0),
    completed_ms: num(r.completed_ms),
  };
}
