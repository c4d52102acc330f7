/**
 * Inboxes at a team's own verified domain on one redis-server, with a local DNS server
 * answering for it (scenarios/inboxes-domains.ts; the Redis Cluster suite,
 * audience-cluster.e2e.test.ts, runs the same scenario).
 */
import { afterAll, beforeAll } from 'vitest';
import { startDnsServer, type TestDnsServer } from '@petrel/testing';
import { startStack, type Stack } from './helpers.js';
import { inboxDomainScenarios } from './scenarios/inboxes-domains.js';

let stack: Stack;
let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
  stack = await startStack({
    env: { DNS_SERVERS: dns.address, DOMAIN_MX_HOST: 'mx.petrel.e2e.test' },
  });
});
afterAll(async () => {
  await stack?.stop();
  await dns?.stop();
});

inboxDomainScenarios(
  () => stack,
  () => dns,
);
