/**
 * The broadcasts API on one redis-server (scenarios/broadcasts-api.ts).
 */
import { fileStack } from './helpers.js';
import { broadcastApiScenarios } from './scenarios/broadcasts-api.js';

const stack = fileStack();

broadcastApiScenarios(() => stack);
