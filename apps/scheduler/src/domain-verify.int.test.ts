import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomain, createDomainSchema, domainRecords, type DomainDnsTargets } from '@petrel/core';
import {
  DomainKeyCipher,
  DomainsStore,
  Keys,
  createDomainDns,
  createRedis,
  type RedisClient,
} from '@petrel/store';
import {
  startDnsServer,
  startRedis,
  uniquePrefix,
  type TestDnsServer,
  type TestRedis,
} from '@petrel/testing';
import { runDomainChecks } from './domain-verify.js';

let server: TestRedis;
let redis: RedisClient;
let dns: TestDnsServer;
const targets: DomainDnsTargets = { mxHost: 'mx.petrel.test', spf: 'v=spf1 a:mx.petrel.test ~all' };
const HOUR = 3_600_000;

beforeAll(async () => {
  [server, dns] = await Promise.all([startRedis({ appendonly: false }), startDnsServer()]);
  redis = createRedis(server.url);
});
afterAll(async () => {
  await redis?.quit();
  await Promise.all([server?.stop(), dns?.stop()]);
});

describe('periodic domain checks', () => {
  it('checks the due domains, puts each back one interval later, and drops a deleted one', async () => {
    let now = Date.now();
    const clock = { now: () => now };
    const keys = new Keys(uniquePrefix('domain-verify'));
    const domains = new DomainsStore(redis, keys, {
      cipher: new DomainKeyCipher('k'.repeat(32)),
      clock,
      checkIntervalMs: HOUR,
    });
    const deps = {
      domains,
      dns: createDomainDns({ servers: [dns.address], timeoutMs: 300, tries: 1 }),
      targets,
      clock,
    };
    const ctx = { ...deps, dkim: { selector: 'petrel', ed25519Selector: 'petrel-ed25519', ed25519: false } };
    const make = (name: string) =>
      createDomain({ teamId: 't', input: createDomainSchema.parse({ name }) }, ctx);
    const kept = await make('kept.test');
    const gone = await make('gone.test');
    for (const r of domainRecords(kept, targets))
      dns.add({ name: r.name, type: r.type as 'TXT' | 'MX', value: r.value });

    // nothing due before the first interval has passed
    expect(await runDomainChecks(deps, HOUR)).toBe(0);

    // deleted behind the schedule's back (a crash between the two steps of a delete)
    await redis.del(keys.domain('t', gone.id));
    now += HOUR;
    expect(await runDomainChecks(deps, HOUR)).toBe(1);
    expect((await domains.get('t', kept.id))!.status).toBe('verified');
    expect(await domains.dueChecks(now + HOUR, 10)).toEqual([{ teamId: 't', domainId: kept.id }]);

    // a record removed: the next round fails the domain
    dns.remove(`petrel._domainkey.kept.test`);
    now += HOUR;
    expect(await runDomainChecks(deps, HOUR)).toBe(1);
    expect((await domains.get('t', kept.id))!.status).toBe('failed');
  });
});
