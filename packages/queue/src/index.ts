export * from './send-queues.js';
