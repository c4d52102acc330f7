export * from './domain-records.js';
export * from './domain-schemas.js';
export * from './domain-status.js';
export * from './domain-use-cases.js';
export * from './domains-port.js';
export * from './sending.js';
export * from './verify-domain.js';
