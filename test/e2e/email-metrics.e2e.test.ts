/**
 * GET /emails/metrics through the official SDK (`resend.emails.metrics`) on one node: the
 * scenarios of scenarios/email-metrics.ts (also run on the Redis Cluster suite).
 */
import { describe } from 'vitest';
import { fileStack } from './helpers.js';
import { emailMetricsScenarios } from './scenarios/email-metrics.js';

const stack = fileStack();

describe('emails.metrics', () => {
  emailMetricsScenarios(() => stack);
});
