/**
 * Every rule and message of send-request validation in one place. Spec limits come from
 * `LIMITS` (contracts); the constants below are Petrel's own policy where the spec is silent.
 * A message is a rule without its path; `formatIssue` (contracts) renders `<path>: <rule>`,
 * e.g. `emails[3].to: at most 50 recipients`.
 */
import { LIMITS, REQUIRED_RULE } from '@petrel/contracts';
import { MAILBOX_LIMITS } from '../kernel/mailbox.js';

export const VALIDATION_RULES = {
  /** `scheduled_at` may lie this far in the past (client clock skew, request transit). */
  scheduleSkewMs: 60_000,
  /** Longest `scheduled_at` text handed to the natural-language parser. */
  scheduledAtInputMaxLength: 256,
  topicIdMaxLength: 256,
  templateIdMaxLength: 256,
  attachmentPathMaxLength: 2_048,
  /** Address sizes (RFC 5321/5322), kept with the mailbox parser that checks them. */
  ...MAILBOX_LIMITS,
} as const;

/** Tag name and value charset. */
export const TAG_PATTERN = /^[A-Za-z0-9_-]+$/;
/** RFC 5322 field name: printable ASCII 33..126 except ':'. */
export const HEADER_NAME_PATTERN = /^[\u0021-\u0039\u003b-\u007e]+$/;

const MB = 1024 * 1024;

export const MSG = {
  required: REQUIRED_RULE,
  object: 'must be an object',
  array: 'must be an array',
  string: 'must be a string',
  nonEmpty: 'must not be empty',
  headerUnsafe: 'must not contain line breaks (CR, LF, U+2028, U+2029), NUL or other control characters',
  badAddress: (reason: string) => `invalid address (${reason})`,
  addressList: 'must be an email address or an array of email addresses',
  noRecipients: 'must contain at least 1 recipient',
  tooManyTo: `at most ${LIMITS.recipientsInTo} recipients`,
  noContent: 'one of html, text or template is required',
  noContentEmptyText:
    'one of html, text or template is required (text "" only turns off the text part generated from html)',
  notInBatch: 'not supported in batch',
  templateConflict: 'cannot be combined with html, text or react',
  react:
    'is not accepted on the wire: the SDK renders react to html client-side; send the rendered html instead',
  headerName: 'header name may contain only printable ASCII except ":"',
  ownedHeader: 'is set by Petrel from the email fields and cannot be a custom header',
  tagCharset: 'only a-z A-Z 0-9 _ - allowed',
  maxChars: (max: number) => `at most ${max} characters`,
  templateId: `must be a non-empty string of at most ${VALIDATION_RULES.templateIdMaxLength} characters`,
  variableKeyCharset: 'variable name may contain only ASCII letters, digits and underscore',
  variableKeyLength: `variable name is longer than ${LIMITS.variableKeyLength} characters`,
  variableReserved: 'is a reserved variable name',
  tooManyVariables: `at most ${LIMITS.variablesPerTemplate} variables`,
  variableType: 'must be a string or a number',
  variableNumber: 'must be a number between -(2^53 - 1) and 2^53 - 1',
  topicId: `must be a non-empty string of at most ${VALIDATION_RULES.topicIdMaxLength} characters`,
  attachmentSource: 'content or path is required',
  attachmentBothSources: 'give either content or path, not both',
  base64: 'must be base64-encoded',
  attachmentPath: 'must be an http or https URL',
  attachmentsTotal: `total attachment size must be at most ${LIMITS.attachmentsTotalBytes / MB} MB`,
  scheduledAtFormat:
    'must be an ISO 8601 date-time or a natural-language time such as "in 1 hour" or "tomorrow at 9am"',
  scheduledAtTooLong: `must be at most ${VALIDATION_RULES.scheduledAtInputMaxLength} characters`,
  scheduledAtPast: 'must be in the future',
  scheduledAtTooFar: `must be at most ${LIMITS.scheduleAheadMs / 86_400_000} days in the future`,
  batchShape: `must be a JSON array of 1 to ${LIMITS.emailsPerBatch} emails`,
  batchTooLarge: `at most ${LIMITS.emailsPerBatch} emails per batch`,
} as const;
