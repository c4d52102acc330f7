/**
 * A small, strict parser for the addresses a client may send: `local@domain` or
 * `Display Name <local@domain>`. Deliberately narrower than RFC 5322: no comments, no groups,
 * no quoted local parts, no address lists in one string, no IP-literal domains, no internationalised
 * (non-punycode) domains. Everything it accepts can be written into a header without escaping
 * tricks; the mailer reuses it to split name and address.
 */
import { HEADER_UNSAFE, VALIDATION_RULES } from './rules.js';

export type ParsedAddress =
  | { ok: true; name?: string; address: string }
  | { ok: false; reason: string };

/** RFC 5322 dot-atom over atext. */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
/** Labels of letters, digits and inner dashes; the last one alphabetic (or a punycode TLD). */
const DOMAIN =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?:[A-Za-z]{2,63}|xn--[A-Za-z0-9-]{1,59})$/;
/** Characters a bare display name must not hold at all. */
const NAME_FORBIDDEN = /[<>"]/;
/** RFC 5322 specials (besides '.') that need a quoted display name. */
const NAME_NEEDS_QUOTES = /[,;:@()[\]\\]/;

const no = (reason: string): ParsedAddress => ({ ok: false, reason });

/**
 * Parses one address. `name` is the display name with quoting removed (absent when empty);
 * `address` is the bare `local@domain`. Never throws.
 */
export function parseAddress(input: string): ParsedAddress {
  if (typeof input !== 'string') return no('not a string');
  if (HEADER_UNSAFE.test(input)) return no('contains a line break or control character');
  if (input.length > VALIDATION_RULES.addressInputMaxLength) return no('too long');
  const s = input.replace(/^[ \t]+|[ \t]+$/g, '');
  if (s === '') return no('empty');

  let name: string;
  let rest: string;
  if (s.charCodeAt(0) === 0x22 /* " */) {
    const quoted = readQuoted(s);
    if (quoted === undefined) return no('unterminated quoted display name');
    name = quoted.text;
    if (s.charCodeAt(quoted.end) === 0x40 /* @ */) return no('quoted local parts are not accepted');
    rest = s.slice(quoted.end).replace(/^[ \t]+/, '');
    if (rest.charCodeAt(0) !== 0x3c /* < */) return no('a quoted display name must be followed by <address>');
  } else {
    const lt = s.indexOf('<');
    if (lt === -1) {
      if (s.includes('>')) return no('unexpected ">"');
      const reason = checkAddrSpec(s);
      return reason === undefined ? { ok: true, address: s } : no(reason);
    }
    name = s.slice(0, lt).replace(/[ \t]+$/, '');
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
  return name === '' ? { ok: true, address } : { ok: true, name, address };
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

/** Returns why `a` is not an acceptable `local@domain`, or undefined when it is. */
function checkAddrSpec(a: string): string | undefined {
  if (a === '') return 'empty address';
  if (a.length > VALIDATION_RULES.addressMaxLength) {
    return `address longer than ${VALIDATION_RULES.addressMaxLength} characters`;
  }
  const at = a.lastIndexOf('@');
  if (at === -1) return 'missing @';
  if (a.indexOf('@') !== at) return 'more than one @ (one address per entry)';
  const local = a.slice(0, at);
  const domain = a.slice(at + 1);
  if (local === '') return 'missing local part before @';
  if (local.length > VALIDATION_RULES.localPartMaxLength) {
    return `local part longer than ${VALIDATION_RULES.localPartMaxLength} characters`;
  }
  if (local.charCodeAt(0) === 0x22) return 'quoted local parts are not accepted';
  if (!LOCAL_PART.test(local)) return 'invalid local part';
  if (domain === '') return 'missing domain after @';
  if (domain.length > VALIDATION_RULES.domainMaxLength) {
    return `domain longer than ${VALIDATION_RULES.domainMaxLength} characters`;
  }
  if (!DOMAIN.test(domain)) return 'invalid domain';
  return undefined;
}
