export * from './keys.js';
export * from './redis.js';
export * from './scripts.js';
export { CrossSlotError, assertOneSlot } from './slots.js';
export * from './api-keys.store.js';
export * from './idempotency.store.js';
export * from './emails.store.js';
export * from './outbox.store.js';
export * from './templates.store.js';
