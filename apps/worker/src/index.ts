export * from './worker.js';
export * from './config.js';
export * from './deliver-email.processor.js';
export * from './job-result.js';
