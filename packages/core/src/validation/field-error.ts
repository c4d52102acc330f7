/**
 * Internal plumbing of the validators: a failure signal, path building and the small type
 * guards every field reader uses. Not exported from the package.
 */
import { HEADER_UNSAFE, MSG, VALIDATION_RULES } from './rules.js';

/**
 * Thrown by the field readers and caught by `validateEmail`, which turns it into
 * `{ ok: false, message }`. Deliberately not an `Error`: no stack is captured, so a permissive
 * batch of 100 bad emails stays cheap. It never leaves this module's callers.
 */
export class FieldError {
  constructor(readonly message: string) {}
}

/** Throws the failure `<path>: <rule>`. */
export function fail(path: string, rule: string): never {
  throw new FieldError(`${path}: ${rule}`);
}

/** `parent.field`, or `field` at the root of a single send. */
export const child = (parent: string, field: string): string =>
  parent === '' ? field : `${parent}.${field}`;

/** `parent[i]`. */
export const item = (parent: string, index: number): string => `${parent}[${index}]`;

/** How the root of the email is named in a message: `emails[3]` in a batch, `body` for a single send. */
export const rootName = (root: string): string => (root === '' ? 'body' : root);

/**
 * A user-chosen key inside a path: `parent.KEY` when it is a plain identifier, else
 * `parent["k-e y"]`, cut to a bounded length so a message never echoes a huge key.
 */
export function keyPath(parent: string, key: string): string {
  const max = VALIDATION_RULES.echoedKeyMaxLength;
  const shown = key.length > max ? `${key.slice(0, max)}…` : key;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(shown)
    ? `${parent}.${shown}`
    : `${parent}[${JSON.stringify(shown)}]`;
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads an optional string field: `undefined`/`null` → `undefined`; anything but a string fails. */
export function optionalString(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') fail(path, MSG.string);
  return value;
}

/** Fails when `value` holds a character that could break out of a header line. */
export function assertHeaderSafe(value: string, path: string): void {
  if (HEADER_UNSAFE.test(value)) fail(path, MSG.headerUnsafe);
}

/** Fails naming every key of `obj` outside `allowed` (with a hint for known camelCase slips). */
export function assertKnownKeys(
  obj: Record<string, unknown>,
  allowed: ReadonlySet<string>,
  hints: Readonly<Record<string, string>>,
  path: string,
): void {
  let unknown: string[] | undefined;
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) (unknown ??= []).push(key);
  }
  if (unknown === undefined) return;
  const max = VALIDATION_RULES.echoedUnknownFieldsMax;
  const names = unknown.slice(0, max).map((key) => {
    const hint = Object.hasOwn(hints, key) ? hints[key] : undefined;
    return hint === undefined ? quoteKey(key) : `${quoteKey(key)} (did you mean \`${hint}\`?)`;
  });
  fail(path, MSG.unknownFields(names, unknown.length - names.length));
}

function quoteKey(key: string): string {
  const max = VALIDATION_RULES.echoedKeyMaxLength;
  const shown = key.length > max ? `${key.slice(0, max)}…` : key;
  return /^[\u0020-\u007e]*$/.test(shown) && !shown.includes('`') ? `\`${shown}\`` : JSON.stringify(shown);
}
