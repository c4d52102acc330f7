export * from './send-queues.js';
export * from './import-queue.js';
