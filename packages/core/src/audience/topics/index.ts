export * from './topic-schemas.js';
export * from './topics-port.js';
export * from './topic-use-cases.js';
