export * from './scheduler.js';
export * from './config.js';
export * from './housekeeping.js';
