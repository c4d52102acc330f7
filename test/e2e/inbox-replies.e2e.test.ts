/**
 * Replies, forwards and drafts of an inbox through the official SDK on one redis-server, with a
 * local DNS server answering for the inbox's verified domain (scenarios/inboxes-replies.ts; the
 * Redis Cluster suite, audience-cluster.e2e.test.ts, runs the same scenarios).
 */
import { afterAll, beforeAll } from 'vitest';
import { startDnsServer, type TestDnsServer } from '@petrel/testing';
import { startStack, type Stack } from './helpers.js';
import { inboxRepliesEnv, inboxReplyScenarios } from './scenarios/inboxes-replies.js';

let stack: Stack;
let dns: TestDnsServer;
beforeAll(async () => {
  dns = await startDnsServer();
  stack = await startStack({ env: inboxRepliesEnv(dns.address) });
});
afterAll(async () => {
  await stack?.stop();
  await dns?.stop();
});

inboxReplyScenarios(
  () => stack,
  () => dns,
);
