export * from './templates-port.js';
export * from './template-addresses.js';
export * from './create-template.js';
export * from './publish-template.js';
export * from './same-content.js';
export * from './duplicate-template.js';
