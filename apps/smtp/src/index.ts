export * from './smtp.js';
export * from './config.js';
export type * from './context.js';
