/**
 * Content-transfer encodings for the MIME builder: 7bit for short-line ASCII, quoted-printable
 * (RFC 2045 6.7) for other text, base64 wrapped at 76 for attachments. Encoders write into
 * one preallocated buffer with table lookups; nothing is compiled per call.
 *
 * Boundary safety: quoted-printable output never contains `=_` and base64 output never contains
 * `-`, so a boundary that starts with `=_` cannot occur in those bodies; only 7bit bodies need
 * the explicit check the builder does.
 */

/** Longest line a 7bit body may keep as it is (RFC 5322's 78-column SHOULD). */
const SEVEN_BIT_MAX_LINE = 78;
/** Quoted-printable: at most 76 characters per line, counting the `=` of a soft break. */
const QP_MAX_LINE = 76;
const BASE64_LINE = 76;

/** NUL and 8-bit characters rule out 7bit. */

const NOT_7BIT = /[^\x01-\x7f]/;
const LINE_BREAKS = /\r\n|\r/g;
const LF = /\n/g;

/** 1 for bytes quoted-printable writes literally: printable ASCII except `=`, plus SP and TAB. */
const QP_LITERAL = new Uint8Array(256);
for (let b = 33; b <= 126; b++) QP_LITERAL[b] = 1;
QP_LITERAL[61] = 0; // '='
QP_LITERAL[32] = 1;
QP_LITERAL[9] = 1;
const HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1');

type TransferEncoding = '7bit' | 'quoted-printable';

export interface EncodedText {
  encoding: TransferEncoding;
  /** The encoded body with CRLF line breaks, pure ASCII. */
  body: string;
}

/** True when every LF-separated line of `text` is at most 78 characters. */
function shortLines(text: string): boolean {
  let start = 0;
  for (;;) {
    const end = text.indexOf('\n', start);
    if ((end === -1 ? text.length : end) - start > SEVEN_BIT_MAX_LINE) return false;
    if (end === -1) return true;
    start = end + 1;
  }
}

/** Encodes a text or html body: 7bit when it is ASCII with short lines, quoted-printable otherwise. */
export function encodeText(text: string): EncodedText {
  if (!NOT_7BIT.test(text)) {
    const lf = text.includes('\r') ? text.replace(LINE_BREAKS, '\n') : text;
    if (shortLines(lf)) return { encoding: '7bit', body: lf.replace(LF, '\r\n') };
  }
  return { encoding: 'quoted-printable', body: quotedPrintable(text) };
}

/**
 * Quoted-printable over the UTF-8 bytes of `text`. CRLF, LF and bare CR all become CRLF hard
 * breaks; a space or tab before a break (or at the end) is encoded; lines are soft-broken
 * so none exceeds 76 characters, never inside an `=XX` triplet.
 */
function quotedPrintable(text: string): string {
  const src = Buffer.from(text, 'utf8');
  const n = src.length;
  // worst case: 3 bytes per input byte plus a 3-byte soft break every 25 triplets
  const out = Buffer.allocUnsafe(n * 3 + Math.ceil((n * 3) / (QP_MAX_LINE - 1)) * 3 + 3);
  let o = 0;
  let col = 0;
  for (let i = 0; i < n; i++) {
    const b = src[i]!;
    if (b === 13 || b === 10) {
      if (b === 13 && src[i + 1] === 10) i++;
      out[o++] = 13;
      out[o++] = 10;
      col = 0;
      continue;
    }
    let literal = QP_LITERAL[b] === 1;
    if (literal && (b === 32 || b === 9)) {
      const next = i + 1 < n ? src[i + 1] : 13;
      if (next === 13 || next === 10) literal = false;
    }
    const width = literal ? 1 : 3;
    // keep room for the '=' of a soft break unless this is the last thing on the line
    const atLineEnd = i + 1 >= n || src[i + 1] === 13 || src[i + 1] === 10;
    if (col + width > (atLineEnd ? QP_MAX_LINE : QP_MAX_LINE - 1)) {
      out[o++] = 61;
      out[o++] = 13;
      out[o++] = 10;
      col = 0;
    }
    if (literal) {
      out[o++] = b;
    } else {
      out[o++] = 61;
      out[o++] = HEX_DIGITS[b >> 4]!;
      out[o++] = HEX_DIGITS[b & 15]!;
    }
    col += width;
  }
  return out.toString('latin1', 0, o);
}

/**
 * Re-wraps base64 content at 76 characters per line. The content is decoded and re-encoded:
 * that accepts what validation lets through (line breaks, the URL-safe alphabet, missing
 * padding) and, for a large attachment, costs less than checking the text with a pattern.
 */
export function wrapBase64(content: string): string {
  const b64 = Buffer.from(content, 'base64').toString('base64');
  if (b64.length <= BASE64_LINE) return b64;
  const lines: string[] = new Array<string>(Math.ceil(b64.length / BASE64_LINE));
  for (let i = 0, k = 0; i < b64.length; i += BASE64_LINE, k++) {
    lines[k] = b64.slice(i, i + BASE64_LINE);
  }
  return lines.join('\r\n');
}
