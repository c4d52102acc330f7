/**
 * The domain tests' DNS: one real DNS server for the file (started before its tests, stopped
 * after them), the domain use-cases' context over a domains store of the file's Redis (the DNS
 * targets, DKIM selectors, and a DNS client that asks only that server), and `publish` to put a
 * domain's records on it. Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import { afterAll, beforeAll } from 'vitest';
import type { DomainDnsTargets, domainRecords } from '@petrel/core';
import { startDnsServer, type TestDnsServer } from '@petrel/testing';
import { DomainKeyCipher } from './domains.crypto.js';
import { createDomainDns } from './domains.dns.js';
import { DomainsStore } from './domains.store.js';
import type { StoreFixture } from './redis.fixture.js';

export const TEST_DNS_TARGETS: DomainDnsTargets = {
  mxHost: 'mx.petrel.test',
  spf: 'v=spf1 a:mx.petrel.test ~all',
};

/** Registers beforeAll/afterAll hooks; `server` and `context()` are usable once beforeAll has run. */
export function useDomainDns(fx: StoreFixture) {
  let server: TestDnsServer;
  beforeAll(async () => {
    server = await startDnsServer();
  });
  afterAll(() => server.stop());
  return {
    get server(): TestDnsServer {
      return server;
    },
    context() {
      return {
        domains: new DomainsStore(fx.redis, fx.keys, { cipher: new DomainKeyCipher('s'.repeat(32)) }),
        targets: TEST_DNS_TARGETS,
        clock: Date,
        dkim: { selector: 'petrel', ed25519Selector: 'petrel-ed25519', ed25519: false },
        dns: createDomainDns({ servers: [server.address], timeoutMs: 300, tries: 1 }),
      };
    },
    publish(records: ReturnType<typeof domainRecords>): void {
      for (const r of records)
        server.add({
          name: r.name,
          type: r.type,
          value: r.value,
          ...(r.priority !== undefined && { priority: r.priority }),
        });
    },
  };
}
