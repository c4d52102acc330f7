/**
 * Broadcast fan-out end to end. On one node, in-process (scenarios/broadcasts.ts, also run on a
 * Redis Cluster by audience-cluster.e2e.test.ts): personalised send-now with unsubscribe and
 * skips, scheduled send, cancel mid fan-out.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { broadcastScenarios } from './scenarios/broadcasts.js';

describe('broadcasts on one Redis, in process', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.stop();
  });
  broadcastScenarios(() => stack);
});
