export * from './suppression-schemas.js';
export * from './suppressions-port.js';
export * from './suppression-use-cases.js';
