export * from './send-queues.js';
export * from './import-queue.js';
export * from './fanout-scheduler.js';
export * from './webhook-queue.js';
export * from './automation-queue.js';
export * from './job-data.js';
export * from './inbox-agent-queue.js';
