export * from './log-id.js';
export * from './redact.js';
export * from './request-logs.js';
