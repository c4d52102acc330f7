/**
 * Open and click tracking in an email's html: the links to rewrite, found once per email, and the
 * html of one recipient with their own pixel and link tokens.
 *
 * Links are the `href` of `<a>` tags, in any case and quote style (HTML Living Standard, 13.2.5
 * "Tokenization": attribute names are case-insensitive, values double-, single- or unquoted; the
 * first of duplicate attributes wins). The URL a browser would follow is the attribute value with
 * its character references decoded and surrounding whitespace stripped; that is the URL the token
 * carries, so the redirect lands exactly where the original link went. A link is left alone when
 * it is not http(s) (mailto:, tel:, #anchors, relative), holds a template placeholder (`{{…}}`,
 * e.g. `{{{RESEND_UNSUBSCRIBE_URL}}}`), points at this service's own unsubscribe or tracking
 * paths, is very long, or has a character reference this module does not decode (it cannot be
 * sure which URL the browser would see; leaving a link untracked is always safe).
 */
import { CLICK_PATH, OPEN_PATH, TRACKED_URL_MAX_LENGTH } from './tracking-token.js';
import { UNSUBSCRIBE_PATH } from '../audience/unsubscribe-token.js';
import { escapeHtml } from '../kernel/html.js';
import { isHttpScheme, parseUrl } from '../kernel/url.js';

/** An html split around its trackable links: `parts[0] + link(urls[0]) + parts[1] + …`. */
export interface TrackableHtml {
  readonly parts: readonly string[];
  /** The decoded URL of each trackable link, in order. */
  readonly urls: readonly string[];
}

/** The start of an `<a>` tag (not `<abbr>`, `<area>`…). */
const A_START = /<a(?=[\s/>])/gi;
/** One attribute: name, then an optional `=` value (double-quoted, single-quoted or bare). */
const ATTRIBUTE = /([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/g;

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  AMP: '&',
  lt: '<',
  LT: '<',
  gt: '>',
  GT: '>',
  quot: '"',
  QUOT: '"',
  apos: "'",
};

/**
 * The attribute value as the browser reads it (13.2.5.72 "Character reference state"), or null
 * when it has a reference this module does not decode: a named one besides the few above, or
 * one whose meaning depends on the legacy table (no semicolon, not followed by `=`). A bare `&`
 * before `name=` stays literal for the browser too, so ordinary query strings decode as written.
 */
export function decodeAttribute(value: string): string | null {
  if (!value.includes('&')) return value;
  let unsure = false;
  const out = value.replace(
    /&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*)(;?)/g,
    (ref: string, name: string, semi: string, offset: number) => {
      if (name.startsWith('#')) {
        const hex = name[1] === 'x' || name[1] === 'X';
        const code = hex ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
        // C1 controls map through windows-1252 and others become U+FFFD in browsers: not guessed
        const odd = code < 0x20 || (code >= 0x7f && code <= 0x9f) || code > 0x10ffff;
        if (!semi || odd || (code >= 0xd800 && code <= 0xdfff)) {
          unsure = true;
          return ref;
        }
        return String.fromCodePoint(code);
      }
      const known = NAMED[name];
      if (semi && known !== undefined) return known;
      if (semi || value[offset + ref.length] !== '=') unsure = true;
      return ref;
    },
  );
  return unsure ? null : out;
}

/** HTML whitespace a browser strips around a URL attribute (and inside it: tab and newlines). */
const trimUrl = (s: string) => s.replace(/^[\t\n\f\r ]+|[\t\n\f\r ]+$/g, '');

/** True when `url` is an absolute http(s) URL worth tracking, given the service's own `base`. */
function trackable(url: string, base: string): boolean {
  if (url.length > TRACKED_URL_MAX_LENGTH || url.includes('{{') || url.includes('}}')) return false;
  if (/[\t\n\r]/.test(url) || !/^https?:\/\//i.test(url)) return false;
  for (const own of [UNSUBSCRIBE_PATH, OPEN_PATH, CLICK_PATH]) {
    if (url.startsWith(`${base}${own}/`)) return false;
  }
  const parsed = parseUrl(url);
  return parsed !== null && isHttpScheme(parsed);
}

/**
 * Finds the trackable links of `html` (`base`: the public URL of this service, whose own links
 * are never rewritten). Pure and done once per email, whatever the number of recipients.
 */
export function findTrackableLinks(html: string, base: string): TrackableHtml {
  const parts: string[] = [];
  const urls: string[] = [];
  let last = 0;
  A_START.lastIndex = 0;
  for (let m = A_START.exec(html); m !== null; m = A_START.exec(html)) {
    const attrsStart = m.index + 2; // after `<a`
    const end = tagEnd(html, attrsStart);
    // an unclosed quote or tag runs to the end of the document, for a browser too: no more tags
    if (end < 0) break;
    A_START.lastIndex = end + 1;
    const href = hrefOf(html.slice(attrsStart, end));
    if (!href) continue;
    const decoded = decodeAttribute(href.value);
    const url = decoded === null ? null : trimUrl(decoded);
    if (url === null || !trackable(url, base)) continue;
    parts.push(html.slice(last, attrsStart + href.start));
    urls.push(url);
    last = attrsStart + href.end;
  }
  parts.push(html.slice(last));
  return { parts, urls };
}

/** Index of the `>` that ends the tag whose attributes start at `from` (quoted values skipped), or -1. */
function tagEnd(html: string, from: number): number {
  for (let i = from; i < html.length; i++) {
    const c = html[i];
    if (c === '>') return i;
    if (c === '"' || c === "'") {
      const close = html.indexOf(c, i + 1);
      if (close < 0) return -1;
      i = close;
    }
  }
  return -1;
}

/** The first `href` attribute of a tag's attribute text: its raw value and where the attribute is. */
function hrefOf(attrs: string): { value: string; start: number; end: number } | null {
  for (const attr of attrs.matchAll(ATTRIBUTE)) {
    if (attr[1]!.toLowerCase() !== 'href') continue;
    // the first href wins; whatever it holds, later ones are not the link
    const value = attr[2] ?? attr[3] ?? attr[4];
    return value === undefined ? null : { value, start: attr.index, end: attr.index + attr[0].length };
  }
  return null;
}

/** A 1×1 image that takes no room; the pixel is its own request, so nothing else is loaded. */
export function pixelTag(src: string): string {
  return (
    `<img src="${escapeHtml(src)}" width="1" height="1" alt="" border="0" ` +
    'style="display:block;height:1px;width:1px;border:0;margin:0;padding:0;overflow:hidden">'
  );
}

/**
 * The html with each link's href from `link(url)`, and `pixel` (a tag) before the last `</body>`,
 * or at the end without one.
 */
export function trackedHtml(
  html: TrackableHtml,
  link: (url: string) => string,
  pixel: string | null,
): string {
  let out = html.parts[0]!;
  for (let i = 0; i < html.urls.length; i++) {
    out += `href="${escapeHtml(link(html.urls[i]!))}"` + html.parts[i + 1]!;
  }
  if (pixel === null) return out;
  let body = -1;
  for (const m of out.matchAll(/<\/body\s*>/gi)) body = m.index;
  return body < 0 ? out + pixel : out.slice(0, body) + pixel + out.slice(body);
}
