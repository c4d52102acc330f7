/**
 * Header-line encoding for the MIME builder: RFC 2047 encoded words, folding at 78 columns,
 * RFC 2231 parameters. Everything here is pure and allocation-light because it runs for every
 * email; all patterns and lookup tables are built once at module load.
 *
 * Invariant: no function here ever emits CR or LF except as the CRLF of a fold, and every
 * caller-supplied value is checked with {@link assertHeaderSafe} first.
 */
import { MessageBuildError } from './build-error.js';

/** RFC 5322 says SHOULD: lines of at most 78 characters, excluding the CRLF. */
const MAX_LINE = 78;
/** RFC 5322 says MUST: at most 998 characters, excluding the CRLF. */
export const HARD_MAX_LINE = 998;
/** RFC 2047: an encoded word is at most 75 characters. */
const MAX_WORD = 75;
/** `=?UTF-8?B?` + `?=`. */
const WORD_OVERHEAD = 12;
/** Below this many free columns on the first line, the encoded value starts on the next one. */
const MIN_FIRST_WORD = 24;

const INJECTION = /[\r\n\0]/;
/** Values left as they are must be printable ASCII (or TAB) and not look like encoded words. */
const NEEDS_ENCODING = /[^\x20-\x7e\t]|=\?|^[ \t]|[ \t]$/;
/** A fold that would leave a whitespace-only line (RFC 5322 forbids it). */
const BLANK_FOLD = /\r\n[ \t]*(?:\r\n|$)/;

/** UTF-8 bytes that RFC 2047 Q encoding may write as they are in any header (the `phrase` set). */
const Q_SAFE = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!*+-/') {
  Q_SAFE[c.charCodeAt(0)] = 1;
}
Q_SAFE[0x20] = 1; // written as '_'
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).toUpperCase().padStart(2, '0'));
const Q_CHAR = Array.from({ length: 256 }, (_, i) =>
  i === 0x20 ? '_' : Q_SAFE[i] ? String.fromCharCode(i) : `=${HEX[i]}`,
);

/** Throws when a header-bound input holds CR, LF or NUL. Validation refuses them earlier. */
export function assertHeaderSafe(value: string, what: string): void {
  if (INJECTION.test(value)) {
    throw new MessageBuildError('header_injection', `${what} contains CR, LF or NUL`);
  }
}

/** Length in bytes of the UTF-8 sequence that starts with `lead`. */
function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  return lead >= 0xc0 ? 2 : 1;
}

/**
 * Encodes `value` as RFC 2047 encoded words in UTF-8: B or Q, whichever is shorter for this
 * value. Words are cut only between UTF-8 sequences, so no word holds part of a character
 * (a surrogate pair is one 4-byte sequence). The first word is at most `firstMax` characters,
 * the others at most `restMax`.
 */
export function encodeWords(value: string, firstMax: number, restMax: number = MAX_WORD): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const n = bytes.length;
  let qLength = 0;
  for (let i = 0; i < n; i++) qLength += Q_SAFE[bytes[i]!] ? 1 : 3;
  const useB = Math.ceil(n / 3) * 4 < qLength;
  const words: string[] = [];
  let budget = Math.min(firstMax, MAX_WORD) - WORD_OVERHEAD;
  let i = 0;
  while (i < n) {
    let j = i;
    if (useB) {
      const maxBytes = Math.floor(budget / 4) * 3;
      while (j < n) {
        const len = utf8Length(bytes[j]!);
        if (j + len - i > maxBytes && j > i) break;
        j += len;
      }
      words.push(`=?UTF-8?B?${bytes.toString('base64', i, j)}?=`);
    } else {
      let text = '';
      while (j < n) {
        const len = utf8Length(bytes[j]!);
        let chunk = '';
        for (let k = j; k < j + len && k < n; k++) chunk += Q_CHAR[bytes[k]!];
        if (text.length + chunk.length > budget && j > i) break;
        text += chunk;
        j += len;
      }
      words.push(`=?UTF-8?Q?${text}?=`);
    }
    i = j;
    budget = Math.min(restMax, MAX_WORD) - WORD_OVERHEAD;
  }
  if (words.length === 0) words.push('=?UTF-8?Q??=');
  return words;
}

/**
 * Folds a whole `Name: value` line by putting CRLF before spaces so that lines stay within
 * 78 columns where a space allows it. Unfolding (removing the CRLFs) gives back the input.
 */
export function foldAtSpaces(line: string): string {
  if (line.length <= MAX_LINE) return line;
  let out = '';
  let start = 0;
  // never fold at the space right after "Name:", which would leave the name alone on its line
  let floor = line.indexOf(':') + 1;
  while (line.length - start > MAX_LINE) {
    let cut = line.lastIndexOf(' ', start + MAX_LINE);
    if (cut <= Math.max(start, floor)) {
      cut = line.indexOf(' ', Math.max(start, floor) + 1);
      if (cut === -1) break;
    }
    out += `${line.slice(start, cut)}\r\n`;
    start = cut;
    floor = 0;
  }
  return out + line.slice(start);
}

/** Length of the longest line of a folded header. */
export function longestLine(folded: string): number {
  let max = 0;
  let start = 0;
  for (;;) {
    const end = folded.indexOf('\r\n', start);
    const len = (end === -1 ? folded.length : end) - start;
    if (len > max) max = len;
    if (end === -1) return max;
    start = end + 2;
  }
}

/** `Name: w1 CRLF SP w2 ...`, the first word sized to what is left of the first line. */
function encodedHeader(name: string, value: string): string {
  const firstRoom = MAX_LINE - name.length - 2;
  if (firstRoom < MIN_FIRST_WORD) {
    return `${name}:\r\n ${encodeWords(value, MAX_WORD).join('\r\n ')}`;
  }
  return `${name}: ${encodeWords(value, firstRoom).join('\r\n ')}`;
}

/**
 * An unstructured header (Subject, custom headers): printable ASCII is folded at spaces and
 * kept readable; anything else — non-ASCII, controls, text that looks like an encoded word,
 * edge whitespace a parser would trim, or a line that cannot fold under `maxLine` — becomes
 * encoded words, so the value a reader decodes is exactly `value`.
 */
export function unstructuredHeader(name: string, value: string, maxLine: number = MAX_LINE): string {
  assertHeaderSafe(value, `header ${name}`);
  if (value === '') return `${name}:`;
  if (!NEEDS_ENCODING.test(value)) {
    const folded = foldAtSpaces(`${name}: ${value}`);
    if (longestLine(folded) <= maxLine && !BLANK_FOLD.test(folded)) return folded;
  }
  return encodedHeader(name, value);
}

/** RFC 2231 attribute-char: bytes a parameter value may hold without percent-encoding. */
const ATTR_CHAR = new Uint8Array(256);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~') {
  ATTR_CHAR[c.charCodeAt(0)] = 1;
}
/** Printable ASCII a quoted-string parameter can hold (quote and backslash get escaped). */
const PLAIN_PARAM = /^[\x20-\x7e]*$/;
/** Room for one RFC 2231 continuation segment, leaving space for ` name*12*=` and `;`. */
const PARAM_SEGMENT = 60;

/**
 * Renders one MIME parameter as `; CRLF SP name=...` segments. Short printable ASCII becomes a
 * quoted string; anything else uses RFC 2231 (`name*=utf-8''%E2%82%AC`), split into
 * continuations (`name*0*=`, `name*1*=`) on character boundaries to keep lines short.
 */
export function mimeParam(name: string, value: string): string {
  if (PLAIN_PARAM.test(value) && value.length + name.length + 4 <= MAX_LINE) {
    return `;\r\n ${name}="${value.replace(/[\\"]/g, '\\$&')}"`;
  }
  const bytes = Buffer.from(value, 'utf8');
  const segments: string[] = [];
  let current = "utf-8''";
  for (let i = 0; i < bytes.length;) {
    const len = utf8Length(bytes[i]!);
    let chunk = '';
    for (let k = i; k < i + len && k < bytes.length; k++) {
      const b = bytes[k]!;
      chunk += ATTR_CHAR[b] ? String.fromCharCode(b) : `%${HEX[b]}`;
    }
    if (current.length + chunk.length > PARAM_SEGMENT && current.length > 0) {
      segments.push(current);
      current = '';
    }
    current += chunk;
    i += len;
  }
  segments.push(current);
  if (segments.length === 1) return `;\r\n ${name}*=${segments[0]}`;
  return segments.map((s, i) => `;\r\n ${name}*${i}*=${s}`).join('');
}
