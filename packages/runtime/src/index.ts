export * from './config.js';
export * from './runtime.js';
export * from './stores.js';
export * from './queues.js';
export * from './acceptance.js';
export * from './process.js';
export { lazily, memoAsync, type Built, type Factories } from './lazy.js';
export * from './host-resolver.js';
