export * from './ports.js';
export * from './reschedule-email.js';
export * from './cancel-email.js';
export * from './delete-email.js';
export type * from './record.js';
export { emailEvent, emailEventData } from './email-event.js';
