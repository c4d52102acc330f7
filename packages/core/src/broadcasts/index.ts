export * from './ports.js';
export * from './fanout.js';
export * from './pacing.js';
export * from './personalize.js';
export * from './schemas.js';
export * from './use-cases.js';
export * from './personal-content.js';
export * from './protection.js';
