/**
 * Domain claims against a real Redis (a Redis Cluster in the `integration-cluster` project, where
 * the claimant's and the holder's keys are in different slots) and a real DNS server: the move's
 * one-team steps are resumable and idempotent — a verify after a crash between any two of them
 * ends with the claim completed and exactly one domain.deleted for the holder, and a domain the
 * holder created again later is left alone.
 */
import { describe, expect, it } from 'vitest';
import type { TeamEvent } from '@petrel/contracts';
import {
  createDomain,
  createDomainClaim,
  createDomainSchema,
  domainRecords,
  verifyDomain,
  verifyDomainClaim,
  type DomainClaimContext,
} from '@petrel/core';
import { DomainClaimsStore } from './domain-claims.store.js';
import { TEST_DNS_TARGETS as targets, useDomainDns } from './domains.fixture.js';
import type { DomainsStore } from './domains.store.js';
import { EmailsStore } from './emails.store.js';
import { useStoreRedis } from './redis.fixture.js';

const fx = useStoreRedis('domain-claims');
const world = useDomainDns(fx);
const { publish } = world;

let counter = 0;
function context(): { ctx: DomainClaimContext; claims: DomainClaimsStore; domains: DomainsStore } {
  const base = world.context();
  const { domains } = base;
  const emails = new EmailsStore(fx.redis, fx.keys, 86_400_000, { statsRetentionMs: 86_400_000 });
  const claims = new DomainClaimsStore(fx.redis, fx.keys, domains, emails);
  const ctx: DomainClaimContext = {
    ...base,
    claims,
    policy: { graceMs: 0, activityWindowMs: 0, ttlMs: 3_600_000 },
    ids: { newId: () => `claim-${++counter}`, token: () => `token${counter}` },
  };
  return { ctx, claims, domains };
}

async function deletedEvents(teamId: string): Promise<TeamEvent[]> {
  return (await fx.events(teamId)).filter((e) => e.type === 'domain.deleted');
}

/** A holder with `name` verified and a claimant with an open claim whose record is published. */
async function claimed(name: string) {
  const { ctx, claims, domains } = context();
  const holder = `holder-${++counter}`;
  const claimant = `claimant-${++counter}`;
  await fx.redis.sadd(fx.keys.teams(), holder, claimant);
  const held = await createDomain({ teamId: holder, input: createDomainSchema.parse({ name }) }, ctx);
  publish(domainRecords(held, targets));
  expect((await verifyDomain({ teamId: holder, domainId: held.id }, ctx)).status).toBe('verified');
  const { claim } = await createDomainClaim(
    { teamId: claimant, input: createDomainSchema.parse({ name }) },
    ctx,
  );
  world.server.add({ name, type: 'TXT', value: claim.record.value });
  return { ctx, claims, domains, holder, claimant, held, claim };
}

describe('domain claims: the move between two teams', () => {
  it('completes in one verify when nothing blocks it; a second verify changes nothing', async () => {
    const { ctx, domains, holder, claimant, held, claim } = await claimed('one-go.test');
    const done = await verifyDomainClaim({ teamId: claimant, domainId: claim.domain_id }, ctx);
    expect(done).toMatchObject({ status: 'completed', blocked_reason: null });
    expect(await domains.get(holder, held.id)).toBeNull();
    expect(await domains.get(claimant, claim.domain_id)).toMatchObject({ name: 'one-go.test' });
    expect((await verifyDomainClaim({ teamId: claimant, domainId: claim.domain_id }, ctx)).status).toBe(
      'completed',
    );
    expect((await deletedEvents(holder)).map((e) => e.data.id)).toEqual([held.id]);
  });

  it('resumes after a crash between the steps: after step 1, and after step 2', async () => {
    // crash after step 1: the claim says transferring, the holder still has the domain
    const a = await claimed('after-step-1.test');
    const stored = (await a.claims.get(a.claimant, a.claim.domain_id))!;
    await a.claims.save(a.claimant, { ...stored, step: 'transferring', found_ms: Date.now() });
    expect((await a.ctx.claims.get(a.claimant, a.claim.domain_id))!.step).toBe('transferring');
    world.server.remove('after-step-1.test'); // the decision was taken: DNS is not asked again
    expect((await verifyDomainClaim({ teamId: a.claimant, domainId: a.claim.domain_id }, a.ctx)).status).toBe(
      'completed',
    );
    expect(await a.domains.get(a.holder, a.held.id)).toBeNull();
    expect(await deletedEvents(a.holder)).toHaveLength(1);

    // crash after step 2: the holder's domain is gone, the claim still says transferring; the
    // holder has created the name again since — that new domain is not the claim's to delete
    const b = await claimed('after-step-2.test');
    const before = (await b.claims.get(b.claimant, b.claim.domain_id))!;
    await b.claims.save(b.claimant, { ...before, step: 'transferring', found_ms: Date.now() });
    await b.domains.remove(b.holder, b.held.id, () => ({ id: b.held.id }));
    const again = await createDomain(
      { teamId: b.holder, input: createDomainSchema.parse({ name: 'after-step-2.test' }) },
      b.ctx,
    );
    expect((await verifyDomainClaim({ teamId: b.claimant, domainId: b.claim.domain_id }, b.ctx)).status).toBe(
      'completed',
    );
    expect(await b.domains.get(b.holder, again.id)).toMatchObject({ name: 'after-step-2.test' });
    expect(await deletedEvents(b.holder)).toHaveLength(1);
  });

  it('is canceled when the claimant deletes its placeholder, superseded when another team took the name', async () => {
    const c = await claimed('canceled.test');
    await c.domains.remove(c.claimant, c.claim.domain_id, () => ({}));
    expect((await verifyDomainClaim({ teamId: c.claimant, domainId: c.claim.domain_id }, c.ctx)).status).toBe(
      'canceled',
    );
    expect(await c.domains.get(c.holder, c.held.id)).not.toBeNull();

    // the name moved to a third team before this claim's record was found
    const s = await claimed('superseded.test');
    const third = `third-${++counter}`;
    await fx.redis.sadd(fx.keys.teams(), third);
    const thirds = await createDomain(
      { teamId: third, input: createDomainSchema.parse({ name: 'superseded.test' }) },
      s.ctx,
    );
    publish(domainRecords(thirds, targets));
    expect((await verifyDomain({ teamId: third, domainId: thirds.id }, s.ctx)).status).toBe('verified');
    await s.domains.remove(s.holder, s.held.id, () => ({}));
    expect((await verifyDomainClaim({ teamId: s.claimant, domainId: s.claim.domain_id }, s.ctx)).status).toBe(
      'superseded',
    );
    expect(await s.domains.get(third, thirds.id)).not.toBeNull();
  });
});
