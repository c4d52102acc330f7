/**
 * Topic sends, unsubscribe and suppression on one redis-server (scenarios/topic-sending.ts).
 */
import { fileStack } from './helpers.js';
import { TOPIC_SENDING_PLAN, topicSendingScenarios } from './scenarios/topic-sending.js';

const stack = fileStack({ plan: TOPIC_SENDING_PLAN });

topicSendingScenarios(() => stack);
