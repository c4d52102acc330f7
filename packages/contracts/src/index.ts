export * from './errors.js';
export * from './queues.js';
export * from './api-keys.js';
export * from './events.js';
export * from './limits.js';
export * from './email-record.js';
export * from './email.js';
export * from './template.js';
