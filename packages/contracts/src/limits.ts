/** Named limits from the specification (sections 2 and 8). Code, docs and tests refer to these. */
export const LIMITS = {
  emailsPerBatch: 100,
  recipientsInTo: 50,
  tagNameLength: 256,
  tagValueLength: 256,
  variableKeyLength: 50,
  variableStringLength: 2_000,
  variableNumberMax: Number.MAX_SAFE_INTEGER,
  variablesPerTemplate: 50,
  idempotencyKeyLength: 256,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  attachmentsTotalBytes: 40 * 1024 * 1024,
  scheduleAheadMs: 30 * 24 * 60 * 60 * 1000,
  paginationDefault: 20,
  paginationMax: 100,
  apiKeyNameLength: 50,
} as const;

/** Variable names a template may not declare: Petrel fills them (contact fields, unsubscribe link). */
export const RESERVED_VARIABLES: ReadonlySet<string> = new Set([
  'FIRST_NAME',
  'LAST_NAME',
  'EMAIL',
  'UNSUBSCRIBE_URL',
  'RESEND_UNSUBSCRIBE_URL',
  'contact',
  'this',
]);

/**
 * Characters that must never reach a header line (RFC 5322 section 2.2 allows no bare CR or LF):
 * C0 controls except TAB (CR, LF, NUL among them), DEL, C1 controls (NEL U+0085 among them) and
 * the Unicode line/paragraph separators U+2028/U+2029, which some clients render as line breaks.
 */
export const HEADER_UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/;

/** Template variable key characters: the send request and template declarations share it. */
export const VARIABLE_KEY_PATTERN = /^[A-Za-z0-9_]+$/;

/** Headers Petrel writes itself; a custom header with one of these names is refused. */
export const OWNED_HEADERS: ReadonlySet<string> = new Set([
  'from',
  'to',
  'cc',
  'bcc',
  'subject',
  'reply-to',
  'message-id',
  'date',
  'mime-version',
  'content-type',
  'content-transfer-encoding',
  // The return path is the envelope's MAIL FROM, Petrel's own (VERP, bounces+<id>@send.<domain>);
  // the final MTA writes this header from it (RFC 5321 section 4.4). A client's would claim
  // another bounce address: refused over the API, dropped from SMTP submissions.
  'return-path',
]);
