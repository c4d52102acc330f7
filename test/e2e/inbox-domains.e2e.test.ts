/**
 * Inboxes at a team's own verified domain on one redis-server, with a local DNS server
 * answering for it (scenarios/inboxes-domains.ts; the Redis Cluster suite,
 * audience-cluster.e2e.test.ts, runs the same scenario).
 */
import { fileDnsStack } from './helpers.js';
import { inboxDomainScenarios } from './scenarios/inboxes-domains.js';

const { stack, dns } = fileDnsStack(() => ({ DOMAIN_MX_HOST: 'mx.petrel.e2e.test' }));

inboxDomainScenarios(
  () => stack,
  () => dns,
);
