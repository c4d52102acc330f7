/**
 * The lean MIME builder (RFC 5322 / 2045-2047 / 2231) that replaces nodemailer's composer on
 * the send path: nodemailer then only transports `raw` (composing was half the sending CPU in
 * the benchmark). It owns the header block, the multipart tree and the
 * transfer encodings; it never does I/O, never reads config and never retries.
 *
 * It must never emit a header line shaped by input: header-bound values holding CR, LF or NUL
 * throw {@link MessageBuildError}, Bcc goes to the envelope only, and the Message-ID is
 * derived from the email id so a retried job yields the same Message-ID (RFC 5322 3.6.4).
 */
import { randomUUID } from 'node:crypto';
import { domainToASCII } from 'node:url';
import { OWNED_HEADERS, type AttachmentInput, type EmailContent } from '@petrel/contracts';
import { addressHeader, needsSmtpUtf8, splitAddress, type SplitAddress } from './address.js';
import { encodeText, wrapBase64, type EncodedText } from './body-encoding.js';
import { LRUCache } from 'lru-cache';
import { MessageBuildError } from './build-error.js';
import { assertHeaderSafe, HARD_MAX_LINE, mimeParam, unstructuredHeader } from './header-encoding.js';
import { attachmentType } from './mime-types.js';
import { textFromHtml } from './text-from-html.js';

/** What {@link buildMessage} needs: the content of one email plus its identity. */
export interface MessageInput extends Pick<
  EmailContent,
  'from' | 'to' | 'cc' | 'bcc' | 'reply_to' | 'subject' | 'html' | 'text' | 'headers' | 'attachments'
> {
  /** The email's id; the Message-ID is `<emailId@messageIdDomain>`. */
  emailId: string;
  /** Domain part of the Message-ID, normally the sending domain (an IDN is written as A-labels). */
  messageIdDomain: string;
  /** Value of the Date header. */
  date: Date;
}

/**
 * SMTP envelope: bare addresses, Bcc included, duplicates removed. Domains are A-labels; a
 * UTF-8 local part stays UTF-8 and needs SMTPUTF8 from the next hop (RFC 6531).
 */
export interface MessageEnvelope {
  from: string;
  to: string[];
}

export interface BuiltMessage {
  /**
   * The whole RFC 5322 message, CRLF line endings, ready for SMTP DATA. When a header address
   * has a UTF-8 local part, its header fields are UTF-8 (RFC 6532) and it may only be sent with
   * SMTPUTF8; {@link asciiRaw} is then the form for a hop without it.
   */
  raw: Buffer;
  envelope: MessageEnvelope;
  /** The Message-ID header value, with its angle brackets. */
  messageId: string;
  /**
   * Only when `raw` has UTF-8 header fields: the same message with every mailbox that has a
   * UTF-8 local part downgraded to an ASCII group (see `formatAsciiMailbox`), for a hop that
   * does not offer SMTPUTF8. Same Message-ID, Date and body.
   */
  asciiRaw?: Buffer;
}

/** Headers the builder writes itself (one list, in contracts; core's validation refuses them first). */
export const OWNED_HEADER_NAMES: ReadonlySet<string> = OWNED_HEADERS;

/** RFC 5322 field name: printable ASCII except ':'. */
const FIELD_NAME = /^[\x21-\x39\x3b-\x7e]+$/;
/** A domain with anything beyond printable ASCII (an IDN in U-label form, or garbage). */
const NON_ASCII_DOMAIN = /[^\x20-\x7e]/;
/** Left and right of the Message-ID's `@`: dot-atom text. */
const MSG_ID_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/;
/** Bytes a Content-ID may hold as they are; the rest is percent-encoded as in a cid: URL. */
const CID_UNSAFE = /[^\x21-\x3b\x3d\x3f-\x7e]/g;
const CID_BRACKETS = /^<|>$/g;

/** Encoded text and html bodies by content: a broadcast encodes its html once. */
const bodyCache = new LRUCache<string, EncodedText>({
  max: 256,
  maxSize: 8_000_000,
  maxEntrySize: 500_000,
  sizeCalculation: (encoded, text) => text.length + encoded.body.length + 1,
});

interface Part {
  /** Content headers, CRLF-separated, no trailing CRLF. */
  headers: string;
  body: string;
}

/** Builds one message; throws {@link MessageBuildError} on unsafe input. */
export function buildMessage(input: MessageInput): BuiltMessage {
  const messageId = formatMessageId(input.emailId, input.messageIdDomain);
  const from = splitAddress(input.from);
  const to = input.to.map(splitAddress);
  const cc = input.cc.map(splitAddress);
  const bcc = input.bcc.map(splitAddress);
  const replyTo = input.reply_to.map(splitAddress);

  const addressHeaders = (ascii: boolean): string =>
    addressHeader('From', [from], ascii) +
    addressHeader('To', to, ascii) +
    addressHeader('Cc', cc, ascii) +
    addressHeader('Reply-To', replyTo, ascii);

  let head =
    `${unstructuredHeader('Subject', input.subject)}\r\n` +
    `Date: ${formatDate(input.date)}\r\n` +
    `Message-ID: ${messageId}\r\n` +
    'MIME-Version: 1.0\r\n';
  for (const name in input.headers) {
    // Emails accepted before Return-Path became Petrel's own may still carry one: dropped, never
    // relayed (the final MTA writes it from MAIL FROM, RFC 5321 section 4.4), rather than failing.
    if (name.toLowerCase() === 'return-path') continue;
    head += `${customHeader(name, input.headers[name]!)}\r\n`;
  }

  const body = bodyTree(input, randomUUID());
  const rest = `${head}${body.headers}\r\n\r\n${body.body}\r\n`;
  const built: BuiltMessage = {
    raw: Buffer.from(addressHeaders(false) + rest, 'utf8'),
    envelope: envelopeOf(from, [to, cc, bcc]),
    messageId,
  };
  // Bcc is not in the headers: a UTF-8 Bcc address changes the envelope only
  if ([from, ...to, ...cc, ...replyTo].some((a) => needsSmtpUtf8(a.address))) {
    built.asciiRaw = Buffer.from(addressHeaders(true) + rest, 'utf8');
  }
  return built;
}

function formatMessageId(emailId: string, idnDomain: string): string {
  // an internationalised sending domain is written as A-labels, as in every other header
  const domain = NON_ASCII_DOMAIN.test(idnDomain) ? domainToASCII(idnDomain) : idnDomain;
  if (!MSG_ID_PART.test(emailId) || !MSG_ID_PART.test(domain)) {
    throw new MessageBuildError('invalid_message_id', 'emailId and messageIdDomain must be dot-atom text');
  }
  return `<${emailId}@${domain}>`;
}

/** RFC 5322 date-time in UTC: `Sat, 21 Nov 2026 09:12:00 +0000`. */
function formatDate(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new MessageBuildError('invalid_date', 'date is not a valid Date');
  return `${date.toUTCString().slice(0, -3)}+0000`;
}

function customHeader(name: string, value: string): string {
  if (!FIELD_NAME.test(name)) {
    throw new MessageBuildError('invalid_header_name', 'custom header name is not an RFC 5322 field name');
  }
  if (OWNED_HEADER_NAMES.has(name.toLowerCase())) {
    throw new MessageBuildError(
      'owned_header',
      `custom header ${name} would override a header Petrel writes`,
    );
  }
  // custom values may be structured (List-Unsubscribe: <url>), so only the 998 limit forces encoding
  return unstructuredHeader(name, value, HARD_MAX_LINE);
}

function envelopeOf(from: SplitAddress, lists: SplitAddress[][]): MessageEnvelope {
  const seen = new Set<string>();
  const to: string[] = [];
  for (const list of lists) {
    for (const a of list) {
      const key = a.address.toLowerCase();
      if (seen.has(key)) continue;
      seen.add(key);
      to.push(a.address);
    }
  }
  return { from: from.address, to };
}

function encodeBody(text: string): EncodedText {
  const hit = bodyCache.get(text);
  if (hit !== undefined) return hit;
  const encoded = encodeText(text);
  bodyCache.set(text, encoded);
  return encoded;
}

function textPart(subtype: 'plain' | 'html', content: string, boundaryRoot: string): Part {
  const encoded = encodeBody(content);
  if (encoded.encoding === '7bit' && encoded.body.includes(boundaryRoot)) {
    // the only body kind a boundary could occur in; vanishingly rare with a random root
    throw new BoundaryCollision();
  }
  return {
    headers: `Content-Type: text/${subtype}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoded.encoding}`,
    body: encoded.body,
  };
}

class BoundaryCollision extends Error {}

/**
 * The body tree: `mixed[ alternative[ text, related[ html, inline… ] ], attachment… ]`, each
 * level only when it has more than one child.
 */
function bodyTree(input: MessageInput, random: string): Part {
  for (let tries = 0; ; tries++) {
    // `=_` cannot occur in quoted-printable or base64 output; 7bit bodies are checked
    const root = `=_petrel_${tries === 0 ? random : randomUUID()}`;
    try {
      return assemble(input, root);
    } catch (err) {
      if (!(err instanceof BoundaryCollision) || tries > 3) throw err;
    }
  }
}

function assemble(input: MessageInput, root: string): Part {
  const html = input.html !== undefined && input.html !== '' ? input.html : undefined;
  const text = input.text ?? (html !== undefined ? textFromHtml(html) : undefined);
  const inline: AttachmentInput[] = [];
  const attached: AttachmentInput[] = [];
  for (const a of input.attachments) {
    if (a.content_id !== undefined && a.content_id !== '' && html !== undefined) inline.push(a);
    else attached.push(a);
  }

  let htmlPart: Part | undefined;
  if (html !== undefined) {
    htmlPart = textPart('html', html, root);
    if (inline.length > 0) {
      htmlPart = multipart('related', `${root}_r`, [htmlPart, ...inline.map(attachmentPart)]);
    }
  }
  const textPartOrNone = text !== undefined && text !== '' ? textPart('plain', text, root) : undefined;

  let content: Part;
  if (htmlPart !== undefined && textPartOrNone !== undefined) {
    content = multipart('alternative', `${root}_a`, [textPartOrNone, htmlPart]);
  } else {
    content = htmlPart ?? textPartOrNone ?? textPart('plain', '', root);
  }
  if (attached.length === 0) return content;
  return multipart('mixed', `${root}_m`, [content, ...attached.map(attachmentPart)]);
}

function multipart(subtype: string, boundary: string, parts: Part[]): Part {
  let body = '';
  for (const p of parts) body += `--${boundary}\r\n${p.headers}\r\n\r\n${p.body}\r\n`;
  return {
    headers: `Content-Type: multipart/${subtype};\r\n boundary="${boundary}"`,
    body: `${body}--${boundary}--`,
  };
}

function attachmentPart(a: AttachmentInput): Part {
  if (a.path !== undefined) {
    throw new MessageBuildError('invalid_attachment', 'attachment path was not fetched before sending');
  }
  const filename = a.filename;
  if (filename !== undefined) assertHeaderSafe(filename, 'attachment filename');
  if (a.content_type !== undefined) assertHeaderSafe(a.content_type, 'attachment content_type');
  const named = filename !== undefined && filename !== '';
  let headers = `Content-Type: ${attachmentType(a.content_type, filename)}`;
  if (named) headers += mimeParam('name', filename);
  headers += '\r\nContent-Transfer-Encoding: base64';
  const cid = a.content_id;
  if (cid !== undefined && cid !== '') {
    assertHeaderSafe(cid, 'attachment content_id');
    headers += `\r\nContent-ID: <${cid.replace(CID_BRACKETS, '').replace(CID_UNSAFE, percentEncode)}>`;
    headers += '\r\nContent-Disposition: inline';
  } else {
    headers += '\r\nContent-Disposition: attachment';
  }
  if (named) headers += mimeParam('filename', filename);
  return { headers, body: wrapBase64(a.content) };
}

function percentEncode(ch: string): string {
  let out = '';
  for (const b of Buffer.from(ch, 'utf8')) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}
