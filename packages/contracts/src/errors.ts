/**
 * The closed set of error names Petrel answers with, and the HTTP status of each
 * (the names and statuses Resend's API answers with). The error body on the wire is always
 * `{ statusCode, name, message }`.
 */
export const ERROR_STATUS = {
  validation_error: 422,
  missing_required_field: 422,
  invalid_parameter: 422,
  invalid_attachment: 422,
  invalid_from_address: 422,
  invalid_access: 422,
  invalid_idempotency_key: 400,
  missing_api_key: 401,
  restricted_api_key: 401,
  invalid_api_key: 403,
  /** An OAuth access token whose scopes do not reach the endpoint (Resend's name). */
  invalid_permission: 403,
  /** An unknown, expired or revoked OAuth access token (RFC 6750 section 3.1: `invalid_token`, 401). */
  invalid_access_token: 401,
  /** Petrel's dashboard: no valid session cookie (signed out, expired, or its key revoked). */
  invalid_session: 401,
  /** Petrel's dashboard: a write authenticated by the session cookie without its CSRF token. */
  invalid_csrf_token: 403,
  not_found: 404,
  method_not_allowed: 405,
  invalid_idempotent_request: 409,
  concurrent_idempotent_requests: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit_exceeded: 429,
  daily_quota_exceeded: 429,
  application_error: 500,
  internal_server_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorName = keyof typeof ERROR_STATUS;

/** The JSON body of every non-2xx response. */
export interface ErrorBody {
  statusCode: number;
  name: ErrorName;
  message: string;
}

/**
 * A domain error with a wire name. Thrown anywhere below the HTTP edge; the API's one
 * error middleware turns it into `{ statusCode, name, message }`.
 */
export class PetrelError extends Error {
  readonly statusCode: number;
  constructor(
    readonly errorName: ErrorName,
    message: string,
    statusCode?: number,
  ) {
    super(message);
    this.name = 'PetrelError';
    this.statusCode = statusCode ?? ERROR_STATUS[errorName];
  }

  toBody(): ErrorBody {
    return { statusCode: this.statusCode, name: this.errorName, message: this.message };
  }
}

export const validationError = (message: string, status = 422): PetrelError =>
  new PetrelError('validation_error', message, status);
export const notFound = (what: string): PetrelError => new PetrelError('not_found', `${what} not found`);

// ---------------------------------------------------------------------------------------------
// Validation messages. Every 422 `validation_error` message reads `<path>: <rule>`, with the path
// written as the client wrote the JSON: `emails[3].to[1]`, `template.variables.NAME`,
// `headers["X-A"]`; `body` when the rule is about the whole body. The send validation, the
// template schemas and the routes' zod schemas all render their issues here, so there is one
// path style and one wording for unknown fields and missing values.
// ---------------------------------------------------------------------------------------------

/** Where a broken rule sits in the request body: field names and array indexes, outermost first. */
export type IssuePath = readonly PropertyKey[];

/** Bounds on what a message echoes back of the client's own input. */
export const ISSUE_FORMAT = {
  /** Longest user-chosen key (header name, variable key, unknown field) shown in a message. */
  echoedKeyMaxLength: 64,
  /** At most this many unknown field names are listed in one message. */
  echoedUnknownFieldsMax: 5,
  /** At most this many broken rules are joined into one message by `formatIssues`. */
  issuesPerMessage: 5,
} as const;

/** camelCase names the SDK maps itself, sent raw by mistake: hinted at in the unknown-field message. */
export const FIELD_HINTS: Readonly<Record<string, string>> = {
  replyTo: 'reply_to',
  scheduledAt: 'scheduled_at',
  topicId: 'topic_id',
  contentType: 'content_type',
  contentId: 'content_id',
};

export const REQUIRED_RULE = 'is required';

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PRINTABLE_ASCII = /^[\u0020-\u007e]*$/;

/** A user-chosen key cut to a bounded length, so a message never echoes a huge key. */
function shownKey(key: string): string {
  const max = ISSUE_FORMAT.echoedKeyMaxLength;
  return key.length > max ? `${key.slice(0, max)}…` : key;
}

/**
 * The path as the client wrote it: `emails[3].to[1]`; a key that is not a plain identifier is
 * quoted (`headers["X-A"]`). `''` for the empty path.
 */
export function formatIssuePath(path: IssuePath): string {
  let out = '';
  for (const step of path) {
    if (typeof step === 'number') {
      out += `[${step}]`;
      continue;
    }
    const key = shownKey(String(step));
    if (!IDENTIFIER.test(key)) out += `[${JSON.stringify(key)}]`;
    else out += out === '' ? key : `.${key}`;
  }
  return out;
}

/** `<path>: <rule>`, the path being `body` when it is empty. */
export function fieldMessage(path: IssuePath, rule: string): string {
  return `${formatIssuePath(path) || 'body'}: ${rule}`;
}

/** The rule for unknown fields: `unknown fields \`foo\`, \`replyTo\` (did you mean \`reply_to\`?)`. */
export function unknownFieldsRule(keys: readonly string[]): string {
  const names = keys.slice(0, ISSUE_FORMAT.echoedUnknownFieldsMax).map((key) => {
    const hint = Object.hasOwn(FIELD_HINTS, key) ? FIELD_HINTS[key] : undefined;
    return hint === undefined ? quoteKey(key) : `${quoteKey(key)} (did you mean \`${hint}\`?)`;
  });
  const more = keys.length - names.length;
  return `unknown field${keys.length > 1 ? 's' : ''} ${names.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function quoteKey(key: string): string {
  const shown = shownKey(key);
  return PRINTABLE_ASCII.test(shown) && !shown.includes('`') ? `\`${shown}\`` : JSON.stringify(shown);
}

/** The zod issue shape the formatter reads (zod's `$ZodIssue`, structurally). */
export interface ValidationIssue {
  readonly code?: string | undefined;
  readonly path: PropertyKey[];
  readonly message: string;
  readonly keys?: string[];
  /** Per union option, the issues it raised (`invalid_union`). */
  readonly errors?: ValidationIssue[][];
  /** Nested issues of a record key or a set/map element (`invalid_key`, `invalid_element`). */
  readonly issues?: ValidationIssue[];
}

export interface FormatIssueOptions {
  /** Path of the validated value inside the request body (`['emails', 3]` for a batch item). */
  prefix?: IssuePath;
  /**
   * The validated value: when given, an issue about a value that is absent from it reads
   * `is required` whatever the schema's own message says.
   */
  input?: unknown;
}

/** One issue as `<path>: <rule>`. */
export function formatIssue(issue: ValidationIssue, opts: FormatIssueOptions = {}): string {
  const { path, rule } = resolveIssue(issue, [], opts.input);
  return fieldMessage(opts.prefix === undefined ? path : [...opts.prefix, ...path], rule);
}

/** The message of a 422 for these issues: the first `max` of them, `; `-separated. */
export function formatIssues(
  issues: readonly ValidationIssue[],
  opts: FormatIssueOptions & { max?: number } = {},
): string {
  const max = opts.max ?? ISSUE_FORMAT.issuesPerMessage;
  return issues
    .slice(0, max)
    .map((issue) => formatIssue(issue, opts))
    .join('; ');
}

/**
 * The innermost issue that explains the failure, with its full path. A union that failed in
 * every option is explained by the one option whose type matched the value (an array given for
 * `string | string[]` is explained by its bad element); a record key by the key's own issue.
 */
function resolveIssue(
  issue: ValidationIssue,
  parent: readonly PropertyKey[],
  input: unknown,
): { path: PropertyKey[]; rule: string } {
  const path = [...parent, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors !== undefined) {
    const typed = issue.errors.filter(
      (option) => option.length > 0 && !option.some((i) => i.code === 'invalid_type' && i.path.length === 0),
    );
    const inner = typed.length === 1 ? typed[0]?.[0] : undefined;
    if (inner !== undefined) return resolveIssue(inner, path, input);
  }
  if ((issue.code === 'invalid_key' || issue.code === 'invalid_element') && issue.issues?.[0] !== undefined) {
    return { path, rule: resolveIssue(issue.issues[0], [], undefined).rule };
  }
  if (issue.code === 'unrecognized_keys' && issue.keys !== undefined) {
    return { path, rule: unknownFieldsRule(issue.keys) };
  }
  if (input !== undefined && path.length > 0 && valueAt(input, path) === undefined) {
    return { path, rule: REQUIRED_RULE };
  }
  return { path, rule: issue.message };
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const step of path) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, step)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[step];
  }
  return cur;
}
