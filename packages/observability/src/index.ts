export * from './logger.js';
export * from './metrics.js';
export * from './health-server.js';
export * from './http-server.js';
export * from './lifecycle.js';
