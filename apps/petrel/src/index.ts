export * from './all-in-one.js';
export * from './config.js';
export * from './embedded-redis.js';
export * from './capture-smtp.js';
