export * from './dispatcher.js';
export * from './config.js';
