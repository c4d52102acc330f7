/**
 * Webhooks on one Redis node: the shared scenarios (scenarios/webhooks.ts) on an all-in-one
 * stack that may deliver to loopback receivers.
 */
import { afterAll, beforeAll } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { WEBHOOK_TEST_ENV, webhookScenarios } from './scenarios/webhooks.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: WEBHOOK_TEST_ENV });
});
afterAll(async () => {
  await stack?.stop();
});

webhookScenarios(() => stack);
