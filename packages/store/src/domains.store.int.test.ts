import { createPublicKey } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createDomain,
  createDomainSchema,
  deleteDomain,
  domainRecords,
  updateDomain,
  verifyDomain,
} from '@petrel/core';
import { DomainKeyCipher, domainKeySecret } from './domains.crypto.js';
import { DomainsStore } from './domains.store.js';
import { TEST_DNS_TARGETS as targets, useDomainDns } from './domains.fixture.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';

const fx = useStoreRedis('domains');
const world = useDomainDns(fx);
const { context, publish } = world;

describe('DomainsStore', () => {
  it('creates a domain with an encrypted RSA key, refuses its name twice, publishes domain.created', async () => {
    const ctx = context();
    const t = nextTeam();
    const d = await createDomain(
      { teamId: t, input: createDomainSchema.parse({ name: 'Example.COM' }) },
      ctx,
    );
    expect(d).toMatchObject({
      name: 'example.com',
      region: 'us-east-1',
      custom_return_path: 'send',
      status: 'not_started',
    });
    expect(d.dkim).toEqual([{ selector: 'petrel', algorithm: 'rsa-sha256', publicKey: expect.any(String) }]);
    const pub = createPublicKey({
      key: Buffer.from(d.dkim[0]!.publicKey, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(pub.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(await ctx.domains.get(t, d.id)).toEqual(d);
    expect(await ctx.domains.byName(t, 'example.com')).toEqual(d);

    const raw = await fx.redis.hgetall(fx.keys.domain(t, d.id));
    expect(raw.private_keys).toMatch(/^\{"petrel":"v1\./);
    expect(raw.private_keys).not.toContain('PRIVATE KEY');

    await expect(createDomain({ teamId: t, input: { name: 'example.com' } }, ctx)).rejects.toMatchObject({
      statusCode: 403,
      errorName: 'validation_error',
    });
    expect((await fx.events(t)).map((e) => e.type)).toEqual(['domain.created']);
    expect((await fx.events(t))[0]!.data).toMatchObject({
      id: d.id,
      name: 'example.com',
      status: 'not_started',
    });
    expect(await ctx.domains.dueChecks(Date.now(), 100)).not.toContainEqual({ teamId: t, domainId: d.id });
    expect(await ctx.domains.dueChecks(Date.now() + 3_600_000, 1000)).toContainEqual({
      teamId: t,
      domainId: d.id,
    });
    expect(await ctx.domains.returnPathTeam('SEND.example.com')).toBe(t);
  });

  it('decrypts keys for sending only with the right secret; lists newest first with cursors', async () => {
    const ctx = context();
    const t = nextTeam();
    const a = await createDomain({ teamId: t, input: { name: 'a.test', dkim_ed25519: true } }, ctx);
    const b = await createDomain({ teamId: t, input: { name: 'b.test' } }, ctx);
    const sending = await ctx.domains.forSending(t, 'a.test');
    expect(sending).toMatchObject({
      id: a.id,
      returnPathDomain: 'send.a.test',
      tls: 'opportunistic',
      verified: false,
    });
    expect(sending!.keys.map((k) => k.algorithm)).toEqual(['rsa-sha256', 'ed25519-sha256']);
    expect(sending!.keys[0]!.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(await ctx.domains.forSending(t, 'nope.test')).toBeNull();

    const wrong = new DomainsStore(fx.redis, fx.keys, { cipher: new DomainKeyCipher('x'.repeat(32)) });
    await expect(wrong.forSending(t, 'b.test')).rejects.toThrow();

    expect((await ctx.domains.list(t, { limit: 1 }))!.items.map((x) => x.id)).toEqual([b.id]);
    expect(await ctx.domains.list(t, { limit: 5, after: b.id })).toEqual({ items: [a], hasMore: false });
    expect(await ctx.domains.list(t, { limit: 5, after: 'nope' })).toBeNull();
  });

  it('verifies against DNS: verified, then failed when a record is removed; events only on change', async () => {
    const ctx = context();
    const t = nextTeam();
    const d = await createDomain({ teamId: t, input: { name: 'verify.test' } }, ctx);
    const records = domainRecords(d, targets);
    publish(records);

    const verified = await verifyDomain({ teamId: t, domainId: d.id }, ctx);
    expect(verified.status).toBe('verified');
    expect(Object.values(verified.checks)).toEqual(['verified', 'verified', 'verified']);
    expect((await ctx.domains.forSending(t, 'verify.test'))!.verified).toBe(true);

    // nothing changed: checked_at moves, no event
    const again = await verifyDomain({ teamId: t, domainId: d.id }, ctx);
    expect(again.status).toBe('verified');
    expect((await fx.events(t)).map((e) => e.type)).toEqual(['domain.created', 'domain.updated']);

    // a DNS outage keeps a verified record verified
    world.server.fail('send.verify.test', 'SERVFAIL');
    expect((await verifyDomain({ teamId: t, domainId: d.id }, ctx)).status).toBe('verified');
    world.server.clearFailure('send.verify.test');

    world.server.remove(`petrel._domainkey.verify.test`);
    const failed = await verifyDomain({ teamId: t, domainId: d.id }, ctx);
    expect(failed.status).toBe('failed');
    expect(failed.checks['dkim:petrel']).toBe('failed');
    const last = (await fx.events(t)).at(-1)!;
    expect(last).toMatchObject({ type: 'domain.updated', data: { id: d.id, status: 'failed' } });
  });

  it('routes a return path to its first claimant until another team verifies the domain', async () => {
    const ctx = context();
    const [a, b] = [nextTeam(), nextTeam()];
    await createDomain({ teamId: a, input: { name: 'claimed.test' } }, ctx);
    expect(await ctx.domains.returnPathTeam('send.claimed.test')).toBe(a);
    // a later, unverified claim of the same name does not divert A's bounces
    const theirs = await createDomain({ teamId: b, input: { name: 'claimed.test' } }, ctx);
    expect(await ctx.domains.returnPathTeam('send.claimed.test')).toBe(a);
    // B publishes its records: control of the DNS moves the route
    publish(domainRecords(theirs, targets));
    expect((await verifyDomain({ teamId: b, domainId: theirs.id }, ctx)).status).toBe('verified');
    expect(await ctx.domains.returnPathTeam('send.claimed.test')).toBe(b);
  });

  it('a record never published over a failing DNS is a temporary failure: the domain is pending', async () => {
    const ctx = context();
    const t = nextTeam();
    const d = await createDomain({ teamId: t, input: { name: 'flaky.test' } }, ctx);
    world.server.fail('petrel._domainkey.flaky.test', 'SERVFAIL');
    world.server.fail('send.flaky.test', 'SERVFAIL');
    const checked = await verifyDomain({ teamId: t, domainId: d.id }, ctx);
    expect(checked.checks['dkim:petrel']).toBe('temporary_failure');
    expect(checked.status).toBe('pending');
  });

  it('updates options (capabilities add records) and deletes with its check and name', async () => {
    const ctx = context();
    const t = nextTeam();
    const d = await createDomain({ teamId: t, input: { name: 'upd.test' } }, ctx);
    await updateDomain(
      { teamId: t, domainId: d.id, patch: { tls: 'enforced', capabilities: { receiving: 'enabled' } } },
      ctx,
    );
    const updated = (await ctx.domains.get(t, d.id))!;
    expect(updated).toMatchObject({
      tls: 'enforced',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
    });
    expect(domainRecords(updated, targets).map((r) => r.record)).toEqual(['DKIM', 'SPF', 'SPF', 'Receiving']);
    await expect(
      updateDomain(
        {
          teamId: t,
          domainId: d.id,
          patch: { capabilities: { sending: 'disabled', receiving: 'disabled' } },
        },
        ctx,
      ),
    ).rejects.toMatchObject({
      statusCode: 422,
      message: 'capabilities: at least one of sending and receiving must be enabled',
    });

    await deleteDomain({ teamId: t, domainId: d.id }, ctx);
    expect(await ctx.domains.get(t, d.id)).toBeNull();
    expect(await ctx.domains.byName(t, 'upd.test')).toBeNull();
    expect(await ctx.domains.returnPathTeam('send.upd.test')).toBeNull();
    expect(await ctx.domains.dueChecks(Date.now(), 1000)).not.toContainEqual({ teamId: t, domainId: d.id });
    await expect(deleteDomain({ teamId: t, domainId: d.id }, ctx)).rejects.toMatchObject({ statusCode: 404 });
    expect((await fx.events(t)).map((e) => e.type)).toEqual([
      'domain.created',
      'domain.updated',
      'domain.deleted',
    ]);
    // the name is free again
    await createDomain({ teamId: t, input: { name: 'upd.test' } }, ctx);
  });

  it('generates the key-encryption secret once when none is configured', async () => {
    const first = await domainKeySecret(fx.redis, fx.keys, undefined);
    expect(first.length).toBeGreaterThanOrEqual(32);
    expect(await domainKeySecret(fx.redis, fx.keys, undefined)).toBe(first);
    expect(await domainKeySecret(fx.redis, fx.keys, 'configured-secret')).toBe('configured-secret');
  });
});
