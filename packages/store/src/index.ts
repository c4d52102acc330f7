export * from './keys.js';
export * from './redis.js';
export * from './scripts.js';
export * from './api-keys.store.js';
export * from './idempotency.store.js';
export * from './emails.store.js';
export * from './templates.store.js';
