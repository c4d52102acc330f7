export * from './schemas.js';
export * from './ports.js';
export * from './property-values.js';
export * from './contacts.use-cases.js';
export * from './contact-properties.use-cases.js';
