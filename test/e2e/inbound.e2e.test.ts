/**
 * Inbound mail on one redis-server (scenarios/inbound.ts): received emails, the no-relay rule,
 * bounces and complaints through the VERP return path, and R22 on the inbound port.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { INBOUND_TEST_ENV, inboundScenarios } from './scenarios/inbound.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ env: INBOUND_TEST_ENV });
});
afterAll(async () => {
  await stack?.stop();
});

describe('inbound mail (SMTP_INBOUND_PORT)', () => {
  inboundScenarios(() => stack);
});
