/**
 * What a request log keeps of a request or response body: the body as JSON, with every secret
 * replaced and its size bounded, so the log can be shown to anyone who may read the team's logs
 * and costs a bounded amount of memory whatever was sent.
 *
 * - Secrets by field name (API key tokens, webhook signing secrets, SMTP and other passwords,
 *   session, CSRF, OAuth and download tokens): the value becomes {@link REDACTED}. Names are
 *   compared in snake case, so `signingSecret` is `signing_secret`.
 * - Secrets by shape, wherever they appear (a key pasted into an email's text): Petrel API keys
 *   (`re_…`), webhook signing secrets (`whsec_…`), and the token segment of Petrel's signed links
 *   (unsubscribe, open/click tracking, downloads, shared emails), which act as credentials.
 * - An attachment's `content` (base64, up to megabytes) keeps its first characters only.
 * - The whole body is cut after about `maxBytes` of JSON: a long string keeps its head, an array
 *   or object stops with a marker saying how much was left out.
 */

export const REDACTED = '[redacted]';

/** Field names whose value is a credential (snake case, lower case). */
const SECRET_FIELDS: ReadonlySet<string> = new Set([
  'token',
  'api_key',
  'apikey',
  'secret',
  'signing_secret',
  'previous_secret',
  'client_secret',
  'password',
  'pass',
  'smtp_password',
  'authorization',
  'session',
  'session_token',
  'session_id',
  'csrf_token',
  'access_token',
  'refresh_token',
  'id_token',
  'code',
  'code_verifier',
  'download_url',
  'share_url',
  'private_key',
]);

/** Characters of an attachment's content that are kept. */
export const ATTACHMENT_CONTENT_KEPT = 32;

/** Deepest nesting kept; deeper values become a marker (no body of the API nests this far). */
const MAX_DEPTH = 32;

/**
 * Secret shapes inside any string: an API key (`re_` + 32 url-safe characters, api-keys.store),
 * a Standard Webhooks signing secret (`whsec_` + base64), and the token of a signed link, the
 * path segment after one of Petrel's link prefixes.
 */
const SECRET_SHAPES: readonly [RegExp, string][] = [
  // no word boundary asked: a key glued to other text (`key=re_…`, `xre_…`) is a key all the same
  [/re_[A-Za-z0-9_-]{16,}/g, `re_${REDACTED}`],
  [/whsec_[A-Za-z0-9+/=]{8,}/g, `whsec_${REDACTED}`],
  [
    /(\/(?:unsubscribe|t\/o|t\/c|emails\/receiving\/downloads|emails\/shared|share|downloads)\/)[A-Za-z0-9._~%-]{8,}/g,
    `$1${REDACTED}`,
  ],
];
/** A cheap pre-check: only strings holding one of these go through the expressions above. */
const SHAPE_HINT = /re_|whsec_|\/(?:unsubscribe|t\/[oc]|emails\/|share|downloads)/;

function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

/** Answers per field name: bodies repeat a few names (`from`, `to`, `html`…) in every request. */
const secretByName = new Map<string, boolean>();
const SECRET_BY_NAME_MAX = 4096;

export function isSecretField(name: string): boolean {
  let secret = secretByName.get(name);
  if (secret === undefined) {
    secret = SECRET_FIELDS.has(snakeCase(name));
    if (secretByName.size >= SECRET_BY_NAME_MAX) secretByName.clear();
    secretByName.set(name, secret);
  }
  return secret;
}

function scrubString(s: string): string {
  if (!SHAPE_HINT.test(s)) return s;
  let out = s;
  for (const [re, by] of SECRET_SHAPES) out = out.replace(re, by);
  return out;
}

interface Budget {
  left: number;
}

/** Characters past the budget still scrubbed, so a secret the cut falls into is still found whole. */
const SCRUB_MARGIN = 64;

/**
 * The string as kept: scrubbed, then cut to the budget. Only the part that can be kept is
 * scrubbed, so a megabyte of html costs what its kept head costs.
 */
function keptString(s: string, budget: Budget): string {
  const room = Math.max(0, budget.left - 2);
  const sliced = s.length > room + SCRUB_MARGIN;
  const scrubbed = scrubString(sliced ? s.slice(0, room + SCRUB_MARGIN) : s);
  if (!sliced && scrubbed.length <= room) {
    budget.left -= scrubbed.length + 2;
    return scrubbed;
  }
  budget.left = 0;
  return `${scrubbed.slice(0, room)}…(truncated, ${s.length} characters)`;
}

function walk(value: unknown, budget: Budget, depth: number, inAttachments: boolean): unknown {
  if (value === null || typeof value === 'boolean') {
    budget.left -= 5;
    return value;
  }
  if (typeof value === 'number') {
    budget.left -= 8;
    return Number.isFinite(value) ? value : null;
  }
  if (typeof value === 'string') return keptString(value, budget);
  if (typeof value !== 'object') return null;
  if (depth >= MAX_DEPTH) return '…(nested too deep)';
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (let i = 0; i < value.length; i++) {
      if (budget.left <= 0) {
        out.push(`…(${value.length - i} more items)`);
        break;
      }
      out.push(walk(value[i], budget, depth + 1, inAttachments));
    }
    budget.left -= 2;
    return out;
  }
  const out: Record<string, unknown> = {};
  const entries = Object.entries(value as Record<string, unknown>);
  for (let i = 0; i < entries.length; i++) {
    const [k, v] = entries[i]!;
    if (budget.left <= 0) {
      out['…'] = `(${entries.length - i} more fields)`;
      break;
    }
    budget.left -= k.length + 4;
    if (isSecretField(k) && v !== null && v !== undefined && v !== '') {
      out[k] = REDACTED;
      budget.left -= REDACTED.length;
    } else if (inAttachments && k === 'content' && typeof v === 'string') {
      out[k] =
        v.length > ATTACHMENT_CONTENT_KEPT
          ? `${v.slice(0, ATTACHMENT_CONTENT_KEPT)}…(truncated, ${v.length} characters)`
          : v;
      budget.left -= ATTACHMENT_CONTENT_KEPT + 40;
    } else if (v !== undefined) {
      out[k] = walk(v, budget, depth + 1, k === 'attachments' && Array.isArray(v));
    }
  }
  budget.left -= 2;
  return out;
}

/**
 * The body as a log keeps it: secrets replaced, attachment contents cut, about `maxBytes` of
 * JSON at most (a few dozen bytes of markers more). `undefined` (no body) becomes `null`.
 */
export function redactLogBody(value: unknown, maxBytes: number): unknown {
  if (value === undefined) return null;
  return walk(value, { left: maxBytes }, 0, false);
}
