export * from './ports.js';
export * from './events.js';
export * from './topics/index.js';
export * from './suppressions/index.js';
export * from './recipient-decision.js';
export * from './unsubscribe-token.js';
export * from './bounce-suppression.js';
export * from './contacts/index.js';
