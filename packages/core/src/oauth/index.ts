export * from './oauth-rules.js';
export * from './oauth-grants.js';
export * from './oauth-credentials.js';
