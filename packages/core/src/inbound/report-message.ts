/**
 * A report as it arrives at the bounce address, read once for both parsers: the message parsed
 * by postal-mime (RFC 5322 / MIME, every part decoded), the `report-type` of a
 * `multipart/report` (RFC 6522), its machine-readable part as text, and the header section of
 * the returned original message — a `message/rfc822` part (RFC 3464 section 2: the whole
 * message) or `text/rfc822-headers` (RFC 6522 section 4: its headers only), or their UTF-8
 * forms `message/global` / `message/global-headers` (RFC 6532, RFC 6533).
 */
import PostalMime, { type Attachment, type Email } from 'postal-mime';
import { fieldGroups, type FieldGroup } from './report-fields.js';

export interface ReportMessage {
  email: Email;
  /** `report-type` of the top-level `multipart/report`, lower-cased; null for any other message. */
  reportType: string | null;
  /** The decoded text of the first part of one of `types` (lower-case MIME types). */
  partText(types: readonly string[]): string | undefined;
  /** The returned message's header fields (names lower-cased); empty when none came back. */
  originalHeaders: FieldGroup;
}

const ORIGINAL_TYPES = ['message/rfc822', 'message/global', 'text/rfc822-headers', 'message/global-headers'];

const decoder = new TextDecoder('utf-8');

/** An attachment's content as text (postal-mime returns ArrayBuffers by default). */
export function attachmentText(a: Pick<Attachment, 'content'>): string {
  const c = a.content;
  if (typeof c === 'string') return c;
  return decoder.decode(c instanceof ArrayBuffer ? new Uint8Array(c) : c);
}

/** The value of parameter `name` in a structured header value (`type/sub; a=b; c="d"`). */
export function headerParam(value: string, name: string): string | undefined {
  const re = new RegExp(`;\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;\\s]+))`, 'i');
  const m = re.exec(value);
  return m ? (m[1] ?? m[2]) : undefined;
}

/** The header section of a message text: everything before the first empty line, as one group. */
export function headerSection(text: string): FieldGroup {
  const normalized = text.replace(/\r\n?/g, '\n');
  const end = normalized.search(/\n\s*\n/);
  const head = end >= 0 ? normalized.slice(0, end) : normalized;
  return fieldGroups(head)[0] ?? new Map();
}

/** Parse `raw` (a whole message) for the report parsers. */
export async function readReport(raw: Buffer | Uint8Array | string): Promise<ReportMessage> {
  const email = await PostalMime.parse(raw, { forceRfc822Attachments: true });
  const contentType = email.headers.find((h) => h.key === 'content-type')?.value ?? '';
  const isReport = /^\s*multipart\/report\b/i.test(contentType);
  const reportType = isReport ? (headerParam(contentType, 'report-type')?.toLowerCase() ?? '') : null;
  const partText = (types: readonly string[]): string | undefined => {
    const part = email.attachments.find((a) => types.includes(a.mimeType.toLowerCase()));
    return part ? attachmentText(part) : undefined;
  };
  const original = partText(ORIGINAL_TYPES);
  return {
    email,
    reportType,
    partText,
    originalHeaders: original !== undefined ? headerSection(original) : new Map(),
  };
}
