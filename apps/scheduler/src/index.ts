export * from './scheduler.js';
export * from './config.js';
