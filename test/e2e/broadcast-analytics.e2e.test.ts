/**
 * A broadcast's recipients and clicked links through the official SDK
 * (`resend.broadcasts.recipients`, `resend.broadcasts.clickedLinks`) on one node: the scenarios
 * of scenarios/email-metrics.ts (also run on the Redis Cluster suite).
 */
import { describe } from 'vitest';
import { fileStack } from './helpers.js';
import { broadcastAnalyticsScenarios } from './scenarios/email-metrics.js';

const stack = fileStack();

describe('broadcasts.recipients and broadcasts.clickedLinks', () => {
  broadcastAnalyticsScenarios(() => stack);
});
