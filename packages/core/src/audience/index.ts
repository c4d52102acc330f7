export * from './ports.js';
export * from './events.js';
