/**
 * Attachments of a single send: each one is base64 `content` or an http(s) `path`. A `path` is
 * kept unfetched (`content: ''`); fetching it, and counting its size against the total, is the
 * acceptance step's job, not validation's.
 */
import type { AttachmentInput } from '@petrel/contracts';
import { LIMITS } from '@petrel/contracts';
import { z } from 'zod';
import { headerSafe, stringWith } from './checks.js';
import { isHttpScheme, parseUrl } from '../kernel/url.js';
import { MSG, VALIDATION_RULES } from './rules.js';

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const BASE64_SPACE = /[ \t\r\n]/g;

const URL_FORBIDDEN = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

/** `filename`, `content_type`, `content_id`: optional, non-empty, header-safe. */
const metadata = stringWith((value) => {
  if (value === '') return MSG.nonEmpty;
  return headerSafe(value) ? undefined : MSG.headerUnsafe;
}).nullish();

const attachment = z.strictObject(
  {
    content: z.string(MSG.string).nullish(),
    path: z.string(MSG.string).nullish(),
    filename: metadata,
    content_type: metadata,
    content_id: metadata,
  },
  { error: MSG.object },
);

/**
 * `attachments` (single send only): each one base64 `content` or an http(s) `path`, and the
 * decoded total within `LIMITS.attachmentsTotalBytes`. The sources are checked over the whole
 * array so each base64 text is measured once, for its own rule and for the total.
 */
export const attachments = z
  .array(attachment, { error: MSG.array })
  .transform((list, ctx) => {
    const fail = (path: PropertyKey[], message: string) => {
      ctx.issues.push({ code: 'custom', message, input: list, path });
      return z.NEVER;
    };
    const out: AttachmentInput[] = new Array<AttachmentInput>(list.length);
    let totalBytes = 0;
    for (let i = 0; i < list.length; i++) {
      const { content, path, filename, content_type, content_id } = list[i]!;
      const hasContent = content !== undefined && content !== null && content !== '';
      const item: AttachmentInput = { content: '' };
      if (hasContent && path !== undefined && path !== null) return fail([i], MSG.attachmentBothSources);
      if (hasContent) {
        const bytes = base64DecodedLength(content);
        if (bytes < 0) return fail([i, 'content'], MSG.base64);
        totalBytes += bytes;
        item.content = content;
      } else if (path !== undefined && path !== null) {
        if (!isHttpUrl(path)) return fail([i, 'path'], MSG.attachmentPath);
        item.path = path;
      } else {
        return fail([i], MSG.attachmentSource);
      }
      if (filename !== undefined && filename !== null) item.filename = filename;
      if (content_type !== undefined && content_type !== null) item.content_type = content_type;
      if (content_id !== undefined && content_id !== null) item.content_id = content_id;
      out[i] = item;
    }
    return totalBytes > LIMITS.attachmentsTotalBytes ? fail([], MSG.attachmentsTotal) : out;
  })
  .nullish();

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
  const url = parseUrl(text);
  return url !== null && isHttpScheme(url) && url.hostname !== '';
}
