export * from './clock.js';
export * from './ids.js';
export * from './mailbox.js';
export * from './page.js';
export * from './html.js';
export * from './found.js';
export * from './url.js';
export * from './event-stamp.js';
