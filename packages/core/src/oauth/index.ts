export * from './oauth-rules.js';
export * from './oauth-grants.js';
