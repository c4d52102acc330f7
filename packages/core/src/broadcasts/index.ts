export * from './ports.js';
export * from './fanout.js';
export * from './personalize.js';
