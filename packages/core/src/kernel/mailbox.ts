/**
 * Mailbox parsing, once for all of core and the mailer: what a client may send ({@link parseAddress},
 * strict), the bare address of a stored `Name <addr>` ({@link splitMailbox}, {@link bareAddress})
 * and the key one mailbox is matched by ({@link mailboxKey}).
 *
 * {@link parseAddress} is a small, strict parser for the addresses a client may send: `local@domain` or
 * `Display Name <local@domain>`. Deliberately narrower than RFC 5322: no comments, no groups,
 * no quoted local parts, no address lists in one string, no IP-literal domains, and no angle
 * brackets without a display name (`<a@b.c>` and
 * `"" <a@b.c>` are valid RFC 5322 name-addrs, but the spec allows "a bare address or
 * `Display Name <address>`"; a client meaning the bare address can send it bare).
 * Everything it accepts can be written into a header without escaping tricks.
 *
 * Why not nodemailer's `addressparser`: it is a lenient RFC 5322 reader by design — it accepts
 * groups, comments and lists and recovers from malformed input without saying why — so it cannot
 * give the refusals with reasons this parser exists for (`addressparser('a@b.c, d@e.f')` reads two
 * mailboxes, `addressparser('Ada <a@b.c')` reads one); and core imports no transport library.
 *
 * Internationalised addresses are accepted as the client wrote them: a domain of U-labels
 * (`bücher.example`, RFC 5890/5891 IDNA) and a UTF-8 local part (`josé@example.com`, RFC 6531
 * SMTPUTF8). Sending them as A-labels and with SMTPUTF8 is the mailer's job; here a U-label
 * domain must convert to a valid A-label domain and back to itself, so what is recorded and what
 * is delivered name the same host.
 *
 * The worker reads a validated address with {@link splitMailbox}: the address between the LAST
 * `<` and a final `>`. Every accepted input has at most one `<` outside a quoted display name and
 * nothing after its `>`, so both read the same address (test/e2e/address-shapes).
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { HEADER_UNSAFE } from '@petrel/contracts';

/** Address sizes: validation's rules (validation/rules.ts) list them too. */
export const MAILBOX_LIMITS = {
  /** RFC 5322 line length: a whole `Name <address>` never needs more. */
  addressInputMaxLength: 998,
  /** RFC 5321 section 4.5.3.1: sizes in octets, measured on the wire form (A-label domain). */
  addressMaxLength: 254,
  localPartMaxLength: 64,
  domainMaxLength: 253,
} as const;

export type ParsedAddress = { ok: true; name?: string; address: string } | { ok: false; reason: string };

const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]";
/** RFC 5322 dot-atom over atext. */
const LOCAL_SRC = `${ATEXT}+(?:\\.${ATEXT}+)*`;
/** Labels of letters, digits and inner dashes; the last one alphabetic (or a punycode TLD). */
const DOMAIN_SRC =
  '(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})';
const LOCAL_PART = new RegExp(`^${LOCAL_SRC}$`);
/**
 * RFC 6531 section 3.3 extends atext with UTF-8 non-ASCII characters; of those only letters, marks
 * and digits are taken (no spaces, controls, format or bidi characters, no symbols).
 */
const UTEXT = `(?:${ATEXT}|[\\p{L}\\p{M}\\p{N}])`;
const LOCAL_PART_UTF8 = new RegExp(`^${UTEXT}+(?:\\.${UTEXT}+)*$`, 'u');
/** What a U-label domain may be written with: letters, marks, digits, `-` and `.` (RFC 5892 PVALID, roughly). */
const IDN_DOMAIN_CHARS = /^[\p{L}\p{M}\p{N}.-]+$/u;
const NON_ASCII = /[^\u0000-\u007f]/;
const DOMAIN = new RegExp(`^${DOMAIN_SRC}$`);
/** The whole `local@domain` in one pass: the fast path for well-formed input (ASCII only, one @). */
const ADDR_SPEC = new RegExp(`^${LOCAL_SRC}@${DOMAIN_SRC}$`);
/** Characters a bare display name must not hold at all. */
const NAME_FORBIDDEN = /[<>"]/;
/** RFC 5322 specials (besides '.') that need a quoted display name. */
const NAME_NEEDS_QUOTES = /[,;:@()[\]\\]/;
/**
 * A display name that shows nothing: empty, whitespace only (what `String#trim` removes, as the
 * mailer does) or invisible format characters (zero-width space, BOM, bidi marks).
 */
const NAME_INVISIBLE = /^[\s\p{Cf}]*$/u;

const no = (reason: string): ParsedAddress => ({ ok: false, reason });
const MISSING_NAME = 'angle brackets without a display name: send the bare address or Display Name <address>';

/**
 * Parses one address. `name` is the display name with quoting removed (absent for a bare
 * address, never empty otherwise); `address` is the bare `local@domain`. Never throws.
 */
export function parseAddress(input: string): ParsedAddress {
  if (typeof input !== 'string') return no('not a string');
  if (ADDR_SPEC.test(input)) {
    const reason = checkLengths(input);
    return reason === undefined ? { ok: true, address: input } : no(reason);
  }
  if (HEADER_UNSAFE.test(input)) return no('contains a line break or control character');
  if (input.length > MAILBOX_LIMITS.addressInputMaxLength) return no('too long');
  const s = trimBlanks(input);
  if (s === '') return no('empty');

  let name: string;
  let rest: string;
  if (s.charCodeAt(0) === 0x22 /* " */) {
    const quoted = readQuoted(s);
    if (quoted === undefined) return no('unterminated quoted display name');
    name = quoted.text;
    if (s.charCodeAt(quoted.end) === 0x40 /* @ */) return no('quoted local parts are not accepted');
    rest = trimBlanks(s.slice(quoted.end));
    if (rest.charCodeAt(0) !== 0x3c /* < */) return no('a quoted display name must be followed by <address>');
  } else {
    const lt = s.indexOf('<');
    if (lt === -1) {
      if (s.includes('>')) return no('unexpected ">"');
      const reason = checkAddrSpec(s);
      return reason === undefined ? { ok: true, address: s } : no(reason);
    }
    name = trimBlanks(s.slice(0, lt));
    rest = s.slice(lt);
    if (NAME_FORBIDDEN.test(name)) return no('display name contains <, > or "');
    if (NAME_NEEDS_QUOTES.test(name)) {
      return no('a display name containing , ; : @ ( ) [ ] or \\ must be in double quotes');
    }
  }

  // rest starts with '<'; it must be exactly `<addr-spec>`.
  const gt = rest.indexOf('>');
  if (gt === -1) return no('missing ">"');
  if (gt !== rest.length - 1) return no('unexpected text after ">"');
  const address = rest.slice(1, gt);
  if (address.includes('<')) return no('more than one "<"');
  const reason = checkAddrSpec(address);
  if (reason !== undefined) return no(reason);
  if (NAME_INVISIBLE.test(name)) return no(MISSING_NAME);
  return { ok: true, name, address };
}

/** Reads the quoted string at the start of `s`; returns its unescaped text and the index after it. */
function readQuoted(s: string): { text: string; end: number } | undefined {
  let text = '';
  for (let i = 1; i < s.length; i++) {
    const c = s.charAt(i);
    if (c === '"') return { text, end: i + 1 };
    if (c === '\\') {
      i++;
      if (i >= s.length) return undefined;
    }
    text += s.charAt(i);
  }
  return undefined;
}

/** Removes spaces and tabs around `s` (not other whitespace: that is refused, not trimmed). */
export function trimBlanks(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isBlank(s.charCodeAt(start))) start++;
  while (end > start && isBlank(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

const isBlank = (c: number): boolean => c === 0x20 || c === 0x09;

/** Length limits of an address that already matches ADDR_SPEC. */
function checkLengths(a: string): string | undefined {
  if (a.length > MAILBOX_LIMITS.addressMaxLength) {
    return `address longer than ${MAILBOX_LIMITS.addressMaxLength} characters`;
  }
  if (a.indexOf('@') > MAILBOX_LIMITS.localPartMaxLength) {
    return `local part longer than ${MAILBOX_LIMITS.localPartMaxLength} characters`;
  }
  return undefined;
}

/** Returns why `a` is not an acceptable `local@domain`, or undefined when it is. */
function checkAddrSpec(a: string): string | undefined {
  if (ADDR_SPEC.test(a)) return checkLengths(a);
  if (a === '') return 'empty address';
  if (a.length > MAILBOX_LIMITS.addressMaxLength) {
    return `address longer than ${MAILBOX_LIMITS.addressMaxLength} characters`;
  }
  const at = a.lastIndexOf('@');
  if (at === -1) return 'missing @';
  if (a.indexOf('@') !== at) return 'more than one @ (one address per entry)';
  const local = a.slice(0, at);
  const domain = a.slice(at + 1);
  if (local === '') return 'missing local part before @';
  if (local.length > MAILBOX_LIMITS.localPartMaxLength) {
    return `local part longer than ${MAILBOX_LIMITS.localPartMaxLength} characters`;
  }
  if (local.charCodeAt(0) === 0x22) return 'quoted local parts are not accepted';
  const utf8Local = NON_ASCII.test(local);
  if (!(utf8Local ? LOCAL_PART_UTF8 : LOCAL_PART).test(local)) return 'invalid local part';
  // RFC 5321 section 4.5.3.1 counts octets: a UTF-8 local part is measured as sent (RFC 6531).
  const localOctets = utf8Local ? Buffer.byteLength(local, 'utf8') : local.length;
  if (localOctets > MAILBOX_LIMITS.localPartMaxLength) {
    return `local part longer than ${MAILBOX_LIMITS.localPartMaxLength} octets (UTF-8)`;
  }
  if (domain === '') return 'missing domain after @';
  if (domain.length > MAILBOX_LIMITS.domainMaxLength) {
    return `domain longer than ${MAILBOX_LIMITS.domainMaxLength} characters`;
  }
  let wireDomain = domain;
  if (!DOMAIN.test(domain)) {
    const aLabels = NON_ASCII.test(domain) ? toALabels(domain) : undefined;
    if (aLabels === undefined) return 'invalid domain';
    if (aLabels.length > MAILBOX_LIMITS.domainMaxLength) {
      return `domain longer than ${MAILBOX_LIMITS.domainMaxLength} characters as A-labels`;
    }
    wireDomain = aLabels;
  }
  if (localOctets + 1 + wireDomain.length > MAILBOX_LIMITS.addressMaxLength) {
    return `address longer than ${MAILBOX_LIMITS.addressMaxLength} octets as sent`;
  }
  return undefined;
}

/**
 * The A-label form of an internationalised domain (RFC 5891 section 4: IDNA2008 via the UTS #46
 * processing Node's URL parser applies), or undefined when `domain` is not a valid one. Refused:
 * labels starting or ending with `-` or with `--` in positions 3-4 (RFC 5891 section 4.2.3.1),
 * and any domain that the conversion would change beyond case (full-width letters, decomposed
 * accents, ideographic full stops), so the recorded domain is the delivered one.
 */
function toALabels(domain: string): string | undefined {
  if (!IDN_DOMAIN_CHARS.test(domain)) return undefined;
  for (const label of domain.split('.')) {
    if (label.startsWith('-') || label.endsWith('-') || label.slice(2, 4) === '--') return undefined;
  }
  const ascii = domainToASCII(domain);
  if (ascii === '' || !DOMAIN.test(ascii)) return undefined;
  return domainToUnicode(ascii) === domain.toLowerCase() ? ascii : undefined;
}

/**
 * A stored `addr` or `Name <addr>` split into its display name as written (quotes kept; `''` when
 * there is none) and the address between the last `<` and a final `>`. It checks nothing: input
 * was validated by {@link parseAddress} when it was accepted, and the mailer checks again before
 * writing a header.
 */
export function splitMailbox(input: string): { name: string; address: string } {
  const s = input.trim();
  if (s.endsWith('>')) {
    const lt = s.lastIndexOf('<');
    if (lt !== -1) return { name: s.slice(0, lt).trim(), address: s.slice(lt + 1, -1).trim() };
  }
  return { name: '', address: s };
}

/** The bare address of a validated `addr` or `Name <addr>` ({@link splitMailbox}). */
export function bareAddress(input: string): string {
  return splitMailbox(input).address;
}

/**
 * One mailbox however it is spelled, for matching an address as the email holds it with the same
 * address as it went on the wire: case folded, an internationalised domain as A-labels (RFC 5890),
 * so `ada@Bücher.example` and `ada@xn--bcher-kva.example` are one mailbox.
 */
export function mailboxKey(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  if (at < 0 || !NON_ASCII.test(domain)) return address.toLowerCase();
  return `${address.slice(0, at)}@${domainToASCII(domain) || domain}`.toLowerCase();
}

/** A domain as matched: lower case, an IDN as A-labels. */
export const routingDomain = (d: string): string => (domainToASCII(d.toLowerCase()) || d).toLowerCase();

/** The domain of an address as matched, or null when it has no local part or no domain. */
export function addressDomain(address: string): string | null {
  const at = address.lastIndexOf('@');
  if (at <= 0 || at === address.length - 1) return null;
  return routingDomain(address.slice(at + 1));
}
