export * from './email-share.js';
export * from './sent-attachments.js';
