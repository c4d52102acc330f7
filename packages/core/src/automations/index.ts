export * from './ports.js';
export * from './duration.js';
export * from './condition.js';
export * from './graph.js';
export * from './engine.js';
export * from './use-cases.js';
export * from './run-steps.js';
