/**
 * A broadcast's recipients and clicked links through the official SDK
 * (`resend.broadcasts.recipients`, `resend.broadcasts.clickedLinks`) on one node: the scenarios
 * of scenarios/email-metrics.ts (also run on the Redis Cluster suite).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { broadcastAnalyticsScenarios } from './scenarios/email-metrics.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('broadcasts.recipients and broadcasts.clickedLinks', () => {
  broadcastAnalyticsScenarios(() => stack);
});
