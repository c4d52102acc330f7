/**
 * Inboxes through the official SDK (`resend.inboxes.*`) on one redis-server: inboxes, labels,
 * agent settings and real mail threading into them (scenarios/inboxes-api.ts), and the compact
 * scenario (scenarios/inboxes.ts). The Redis Cluster suite (audience-cluster.e2e.test.ts) runs
 * the same scenarios.
 */
import { describe } from 'vitest';
import { fileStack } from './helpers.js';
import { inboxScenarios } from './scenarios/inboxes.js';
import { inboxApiScenarios } from './scenarios/inboxes-api.js';

const stack = fileStack();

inboxApiScenarios(() => stack);

// the scenario the Redis Cluster suite runs too (audience-cluster.e2e.test.ts)
describe('the inbox scenario on one node', () => {
  inboxScenarios(() => stack);
});
