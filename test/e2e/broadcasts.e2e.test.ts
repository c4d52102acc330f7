/**
 * The broadcasts API on one redis-server (scenarios/broadcasts-api.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { broadcastApiScenarios } from './scenarios/broadcasts-api.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack?.stop();
});

broadcastApiScenarios(() => stack);
