export * from './ports.js';
export * from './options.js';
export * from './map-row.js';
export * from './csv-records.js';
export * from './create-contact-import.js';
export * from './run-contact-import.js';
