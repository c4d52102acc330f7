/**
 * Domain claims e2e through the official SDK (`domains.claims.*`): a second team claims a domain
 * the stack's team holds verified, with a local authoritative DNS server standing in for the
 * domain's zone (as in domains.e2e.test.ts). The claim stays pending until its TXT record is
 * published, is blocked for the grace period, then while the holder has a scheduled email from
 * the domain, then while the holder's recent sends from it are in the activity window; then the
 * domain moves: the claimant's placeholder holds fresh DKIM keys, the holder's domain is deleted
 * (its `domain.deleted` event on the holder's stream) and the holder's sends from it are refused.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { ApiKeysStore } from '@petrel/store';
import { waitUntil } from '@petrel/testing';
import { fileDnsStack, ok } from './helpers.js';

/** The holder's activity window: long enough to see the block right after a send, short enough to wait out. */
const ACTIVITY_WINDOW_S = 8;

const { stack, dns } = fileDnsStack(() => ({
  ENFORCE_VERIFIED_DOMAINS: 'true',
  DOMAIN_MX_HOST: 'mx.petrel.e2e.test',
  DOMAIN_CLAIM_GRACE_S: '1',
  DOMAIN_CLAIM_ACTIVITY_WINDOW_S: String(ACTIVITY_WINDOW_S),
}));
let claimant: Resend;
let claimantKey: string;
beforeAll(async () => {
  const store = new ApiKeysStore(stack.admin, stack.keys);
  claimantKey = (await store.create(await store.createTeam('claimant'), { name: 'claimant' })).token;
  claimant = new Resend(claimantKey, { baseUrl: stack.baseUrl });
});

type Record_ = { name: string; type: string; value: string; priority?: number };
const publish = (records: readonly Record_[]): void => {
  for (const r of records)
    dns.add({
      name: r.name,
      type: r.type as 'TXT' | 'MX',
      value: r.value,
      ...(r.priority !== undefined && { priority: r.priority }),
    });
};
const dkimOf = (records: readonly Record_[]): string =>
  records.find((r) => r.name.includes('._domainkey.'))!.value;

const send = (resend: Resend, from: string, extra: Record<string, unknown> = {}) =>
  resend.emails.send({ from, to: 'someone@example.test', subject: 'hi', text: 'hello', ...extra } as never);

describe('domain claims', () => {
  it('pending → blocked (grace, scheduled emails, recent sends) → completed: the domain moves with fresh keys', async () => {
    const name = 'claimed.e2e.test';
    // the holder: the stack's team, its domain verified, an email scheduled from it
    const held = (await stack.resend.domains.create({ name })).data!;
    publish(held.records as Record_[]);
    await stack.resend.domains.verify(held.id);
    expect((await stack.resend.domains.get(held.id)).data?.status).toBe('verified');
    const scheduled = await send(stack.resend, `news@${name}`, { scheduledAt: 'in 1 day' });
    expect(scheduled.error).toBeNull();

    const claim = ok(await claimant.domains.claims.create({ name: 'Claimed.e2e.test' }));
    expect(claim).toMatchObject({
      object: 'domain_claim',
      name,
      status: 'pending',
      region: 'us-east-1',
      blocked_reason: null,
      failure_reason: null,
      record: {
        type: 'TXT',
        name,
        value: expect.stringMatching(/^petrel-domain-claim=[0-9a-f]{32}$/),
        ttl: 'Auto',
      },
    });
    const ttl = Date.parse(claim.expires_at) - Date.parse(claim.created_at);
    expect(ttl).toBe(7 * 86_400_000);
    const placeholderId = claim.domain_id!;
    // the claim as POST /domains/:id/claim/verify answers now, and once `done` holds for it
    const verify = async () => (await claimant.domains.claims.verify(placeholderId)).data;
    const verifyUntil = (
      done: (v: NonNullable<Awaited<ReturnType<typeof verify>>>) => boolean,
      timeoutMs: number,
      message: string,
    ) =>
      waitUntil(
        async () => {
          const v = await verify();
          return v && done(v) ? v : null;
        },
        { timeoutMs, message },
      );
    // the same claim again: the open one, unchanged, with 200
    const again = await stack.http('/domains/claim', {
      method: 'POST',
      key: claimantKey,
      body: JSON.stringify({ name }),
    });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ ...claim });
    expect((await claimant.domains.claims.get(placeholderId)).data).toEqual(claim);
    // the holder cannot read the claimant's claim
    expect((await stack.resend.domains.claims.get(placeholderId)).error).toMatchObject({ statusCode: 404 });

    // no TXT record yet: pending
    expect(await verify()).toMatchObject({ status: 'pending' });

    dns.add({ name, type: 'TXT', value: claim.record.value });
    expect(await verify()).toMatchObject({ status: 'blocked', blocked_reason: 'grace_period' });
    const afterGrace = await verifyUntil(
      (v) => v.blocked_reason !== 'grace_period',
      15_000,
      'the grace period to end',
    );
    expect(afterGrace).toMatchObject({ status: 'blocked', blocked_reason: 'pending_scheduled_emails' });
    expect((await claimant.domains.claims.get(placeholderId)).data).toMatchObject({
      status: 'blocked',
      blocked_reason: 'pending_scheduled_emails',
    });

    // the holder sends from the domain now and cancels its scheduled email
    const sent = await send(stack.resend, `news@${name}`);
    expect(sent.error).toBeNull();
    expect((await stack.resend.emails.cancel(scheduled.data!.id)).error).toBeNull();
    expect(await verify()).toMatchObject({ status: 'blocked', blocked_reason: 'recent_owner_activity' });

    const completed = await verifyUntil(
      (v) => v.status === 'completed',
      (ACTIVITY_WINDOW_S + 15) * 1000,
      'the activity window to pass and the claim to complete',
    );
    expect(completed).toMatchObject({ id: claim.id, blocked_reason: null, domain_id: placeholderId });
    // a completed claim stays completed
    expect(await verify()).toMatchObject({ status: 'completed' });

    // the holder's domain is gone, and the holder was told
    expect((await stack.resend.domains.get(held.id)).error).toMatchObject({ statusCode: 404 });
    const deleted = (await stack.teamEvents('domain.deleted')).filter(
      (e) => (e.data as { id?: string }).id === held.id,
    );
    expect(deleted).toHaveLength(1);
    expect(deleted[0]!.data).toMatchObject({ name, status: 'verified' });
    // the holder's sends from it stop (an API process reuses a verified lookup for up to a second)
    await waitUntil(async () => (await send(stack.resend, `news@${name}`)).error?.statusCode === 403, {
      timeoutMs: 5_000,
      message: "the former holder's from to be refused",
    });

    // the claimant's domain: fresh DKIM keys, verified once it publishes its own records
    const mine = (await claimant.domains.get(placeholderId)).data!;
    expect(mine).toMatchObject({ name, status: 'not_started' });
    expect(dkimOf(mine.records as Record_[])).not.toBe(dkimOf(held.records as Record_[]));
    publish(mine.records as Record_[]);
    await claimant.domains.verify(placeholderId);
    expect((await claimant.domains.get(placeholderId)).data?.status).toBe('verified');
    expect((await send(claimant, `hello@${name}`)).error).toBeNull();
  });

  it('bad input is a 422 naming the field; a name nobody holds or the team has is refused', async () => {
    const post = (body: unknown) =>
      stack.http('/domains/claim', { method: 'POST', key: claimantKey, body: JSON.stringify(body) });
    expect(await post({})).toMatchObject({
      status: 422,
      body: { name: 'validation_error', message: expect.stringMatching(/^name: /) },
    });
    expect(await post({ name: 'not a domain' })).toMatchObject({
      status: 422,
      body: { message: expect.stringContaining('must be a domain name') },
    });
    expect(await post({ name: 'held.e2e.test', region: 'mars' })).toMatchObject({
      status: 422,
      body: { message: expect.stringMatching(/^region: /) },
    });
    expect(await post({ name: 'nobody-holds.e2e.test' })).toMatchObject({
      status: 422,
      body: {
        message:
          'name: no other team has verified nobody-holds.e2e.test; add it with POST /domains instead of claiming it',
      },
    });
    // a domain of the team's own is no claim
    await claimant.domains.create({ name: 'own.e2e.test' });
    expect(await post({ name: 'own.e2e.test' })).toMatchObject({
      status: 403,
      body: { message: 'name: the team has a domain named own.e2e.test already' },
    });
    // a domain without a claim, an unknown id
    const own = (await claimant.domains.list()).data!.data.find((d) => d.name === 'own.e2e.test')!;
    expect((await claimant.domains.claims.get(own.id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect(
      (await claimant.domains.claims.verify('0190a000-0000-7000-8000-000000000000')).error,
    ).toMatchObject({
      statusCode: 404,
    });
  });
});
