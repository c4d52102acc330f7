export * from './ports.js';
export * from './reschedule-email.js';
export * from './cancel-email.js';
