export { parseScheduledAt, type ParsedScheduledAt } from './scheduled-at.js';
export { base64DecodedLength } from './attachments.js';
export { validateEmail, type ValidateEmailOptions, type ValidateEmailResult } from './validate-email.js';
export { validateBatch, type ValidateBatchOptions, type ValidatedBatch } from './validate-batch.js';
export { MSG as VALIDATION_MESSAGES, VALIDATION_RULES } from './rules.js';
