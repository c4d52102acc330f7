export * from './threading.js';
export * from './schemas.js';
export * from './ports.js';
export * from './wire.js';
export * from './use-cases.js';
