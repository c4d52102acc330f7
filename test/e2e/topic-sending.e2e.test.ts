/**
 * Topic sends, unsubscribe and suppression on one redis-server (scenarios/topic-sending.ts).
 */
import { afterAll, beforeAll } from 'vitest';
import { startStack, type Stack } from './helpers.js';
import { TOPIC_SENDING_PLAN, topicSendingScenarios } from './scenarios/topic-sending.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ plan: TOPIC_SENDING_PLAN });
});
afterAll(async () => {
  await stack?.stop();
});

topicSendingScenarios(() => stack);
