/**
 * Replies, forwards and drafts of an inbox through the official SDK on one redis-server, with a
 * local DNS server answering for the inbox's verified domain (scenarios/inboxes-replies.ts; the
 * Redis Cluster suite, audience-cluster.e2e.test.ts, runs the same scenarios).
 */
import { fileDnsStack } from './helpers.js';
import { inboxRepliesEnv, inboxReplyScenarios } from './scenarios/inboxes-replies.js';

const { stack, dns } = fileDnsStack((server) => inboxRepliesEnv(server.address));

inboxReplyScenarios(
  () => stack,
  () => dns,
);
