export * from './claim-rules.js';
export * from './claim-use-cases.js';
