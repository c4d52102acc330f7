export * from './submission.js';
export * from './submission-replies.js';
export * from './submission-data.js';
