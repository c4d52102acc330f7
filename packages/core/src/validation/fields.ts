/**
 * Readers for the header-bound fields of a send: addresses, subject, custom headers, tags and
 * topic_id. Each returns the normalised value or throws a `FieldError` naming the field and rule.
 * Nothing that passes here can carry CR, LF, NUL or another line-breaking character into a header.
 */
import type { Tag } from '@petrel/contracts';
import { LIMITS } from '@petrel/contracts';
import { parseAddress, trimBlanks } from './address.js';
import { assertHeaderSafe, assertKnownKeys, child, fail, isRecord, item, keyPath } from './field-error.js';
import {
  FIELD_HINTS,
  HEADER_NAME_PATTERN,
  HEADER_UNSAFE,
  MSG,
  OWNED_HEADERS,
  TAG_PATTERN,
  VALIDATION_RULES,
} from './rules.js';

const TAG_FIELDS: ReadonlySet<string> = new Set(['name', 'value']);

/** Fails unless `value` is one acceptable address; returns it without surrounding blanks. */
export function readAddress(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, MSG.string);
  const parsed = parseAddress(value);
  if (!parsed.ok) fail(path, MSG.badAddress(parsed.reason));
  return trimBlanks(value);
}

/**
 * Reads a `string | string[]` address field. Absent or null → `[]`; `min`/`max` bound the count
 * (`to` needs 1..50, the others are open).
 */
export function readAddressList(value: unknown, path: string, min = 0, max = Infinity): string[] {
  if (value === undefined || value === null || value === '') {
    if (min > 0) fail(path, MSG.required);
    return [];
  }
  if (typeof value === 'string') return [readAddress(value, path)];
  if (!Array.isArray(value)) fail(path, MSG.addressList);
  if (value.length < min) fail(path, MSG.noRecipients);
  if (value.length > max) fail(path, MSG.tooManyTo);
  const out: string[] = new Array<string>(value.length);
  for (let i = 0; i < value.length; i++) out[i] = readAddress(value[i], item(path, i));
  return out;
}

/** Reads a header-bound free-text field (subject): a string with no line-breaking characters. */
export function readHeaderText(value: unknown, path: string): string {
  if (typeof value !== 'string') fail(path, MSG.string);
  assertHeaderSafe(value, path);
  return value;
}

/** Reads `headers`: a map of RFC 5322 field names to header-safe string values. */
export function readHeaders(value: unknown, path: string): Record<string, string> {
  // A null-prototype map, so a header named `__proto__` is data, not a prototype change.
  const out = Object.create(null) as Record<string, string>;
  if (value === undefined || value === null) return out;
  if (!isRecord(value)) fail(path, MSG.object);
  for (const name of Object.keys(value)) {
    // The path is built only on failure: this loop runs for every header of every email.
    if (!HEADER_NAME_PATTERN.test(name)) fail(keyPath(path, name), MSG.headerName);
    if (OWNED_HEADERS.has(name.toLowerCase())) fail(keyPath(path, name), MSG.ownedHeader);
    const v = value[name];
    if (typeof v !== 'string') fail(keyPath(path, name), MSG.string);
    if (HEADER_UNSAFE.test(v)) fail(keyPath(path, name), MSG.headerUnsafe);
    out[name] = v;
  }
  return out;
}

/** Reads `tags`: `[{ name, value }]`, both parts 1..256 characters of `[A-Za-z0-9_-]`. */
export function readTags(value: unknown, path: string): Tag[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, MSG.array);
  const out: Tag[] = new Array<Tag>(value.length);
  for (let i = 0; i < value.length; i++) {
    const at = item(path, i);
    const tag: unknown = value[i];
    if (!isRecord(tag)) fail(at, MSG.object);
    assertKnownKeys(tag, TAG_FIELDS, FIELD_HINTS, at);
    out[i] = {
      name: readTagPart(tag.name, child(at, 'name'), LIMITS.tagNameLength),
      value: readTagPart(tag.value, child(at, 'value'), LIMITS.tagValueLength),
    };
  }
  return out;
}

function readTagPart(value: unknown, path: string, max: number): string {
  if (value === undefined || value === null || value === '') fail(path, MSG.required);
  if (typeof value !== 'string') fail(path, MSG.string);
  if (value.length > max) fail(path, MSG.maxChars(max));
  if (!TAG_PATTERN.test(value)) fail(path, MSG.tagCharset);
  return value;
}

/** Reads `topic_id` (null is absent). Whether topics exist for the team is the caller's question. */
export function readTopicId(value: unknown, path: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > VALIDATION_RULES.topicIdMaxLength) {
    fail(path, MSG.topicId);
  }
  assertHeaderSafe(value, path);
  return value;
}
