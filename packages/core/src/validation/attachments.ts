/**
 * Attachments of a single send: each one is base64 `content` or an http(s) `path`. A `path` is
 * kept unfetched (`content: ''`); fetching it, and counting its size against the total, is the
 * acceptance step's job, not validation's.
 */
import type { AttachmentInput } from '@petrel/contracts';
import { LIMITS } from '@petrel/contracts';
import {
  assertHeaderSafe,
  assertKnownKeys,
  child,
  fail,
  isRecord,
  item,
  optionalString,
} from './field-error.js';
import { FIELD_HINTS, MSG, VALIDATION_RULES } from './rules.js';

const ATTACHMENT_FIELDS: ReadonlySet<string> = new Set([
  'content',
  'path',
  'filename',
  'content_type',
  'content_id',
]);
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const BASE64_SPACE = /[ \t\r\n]/g;

const URL_FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

/** Reads `attachments` (absent or null → `[]`). */
export function readAttachments(value: unknown, path: string): AttachmentInput[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) fail(path, MSG.array);
  const out: AttachmentInput[] = [];
  let totalBytes = 0;
  for (let i = 0; i < value.length; i++) {
    const at = item(path, i);
    const raw: unknown = value[i];
    if (!isRecord(raw)) fail(at, MSG.object);
    assertKnownKeys(raw, ATTACHMENT_FIELDS, FIELD_HINTS, at);
    const content = optionalString(raw.content, child(at, 'content'));
    const source = optionalString(raw.path, child(at, 'path'));
    const hasContent = content !== undefined && content !== '';
    if (hasContent && source !== undefined) fail(at, MSG.attachmentBothSources);
    const attachment: AttachmentInput = { content: '' };
    if (hasContent) {
      const bytes = base64DecodedLength(content);
      if (bytes < 0) fail(child(at, 'content'), MSG.base64);
      totalBytes += bytes;
      attachment.content = content;
    } else if (source !== undefined) {
      if (!isHttpUrl(source)) fail(child(at, 'path'), MSG.attachmentPath);
      attachment.path = source;
    } else {
      fail(at, MSG.attachmentSource);
    }
    for (const key of ['filename', 'content_type', 'content_id'] as const) {
      const text = optionalString(raw[key], child(at, key));
      if (text === undefined) continue;
      if (text === '') fail(child(at, key), MSG.nonEmpty);
      assertHeaderSafe(text, child(at, key));
      attachment[key] = text;
    }
    out.push(attachment);
  }
  if (totalBytes > LIMITS.attachmentsTotalBytes) fail(path, MSG.attachmentsTotal);
  return out;
}

/**
 * Decoded size of standard or URL-safe base64 (line breaks and spaces tolerated, padding
 * optional), or -1 when `text` is not base64.
 */
export function base64DecodedLength(text: string): number {
  let s = text;
  if (!BASE64.test(s)) {
    s = s.replace(BASE64_SPACE, '');
    if (!BASE64.test(s)) return -1;
  }
  let padding = 0;
  while (padding < s.length && s.charCodeAt(s.length - 1 - padding) === 0x3d /* = */) padding++;
  const data = s.length - padding;
  if (padding > 0 ? s.length % 4 !== 0 : data % 4 === 1) return -1;
  return Math.floor((data * 3) / 4);
}

function isHttpUrl(text: string): boolean {
  if (text.length > VALIDATION_RULES.attachmentPathMaxLength || URL_FORBIDDEN.test(text)) return false;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}
