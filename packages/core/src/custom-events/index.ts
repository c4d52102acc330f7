export * from './ports.js';
export * from './coerce-payload.js';
export * from './use-cases.js';
