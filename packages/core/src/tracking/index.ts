export * from './ports.js';
export * from './tracking-token.js';
export * from './track-html.js';
export * from './record-engagement.js';
