export * from './validation/index.js';
export * from './ids.js';
export * from './accept/accept-emails.js';
export * from './templates/parse-template.js';
export * from './templates/render-template.js';
export * from './templates/undeclared-variables.js';
export * from './net/ip-policy.js';
