/**
 * GET /emails/metrics through the official SDK (`resend.emails.metrics`) on one node: the
 * scenarios of scenarios/email-metrics.ts (also run on the Redis Cluster suite).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { emailMetricsScenarios } from './scenarios/email-metrics.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe('emails.metrics', () => {
  emailMetricsScenarios(() => stack);
});
