export * from './rate-limit.js';
export * from './daily-quota.js';
