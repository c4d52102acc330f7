/**
 * Address handling for the MIME builder: splits `Name <addr>` / bare inputs (already validated
 * upstream), renders mailboxes for From/To/Cc/Reply-To and bare addresses for the envelope.
 * The checks here are defence in depth: they refuse anything that could add a recipient or a
 * header line, not everything validation refuses.
 *
 * Internationalised domains always leave as A-labels (RFC 5890), in the envelope and in the
 * headers, so they need nothing from the next hop. A UTF-8 local part cannot be written in
 * ASCII at all: it needs SMTPUTF8 (RFC 6531) on the wire and UTF-8 header fields (RFC 6532).
 */
import { domainToASCII } from 'node:url';
import { splitMailbox } from '@petrel/core';
import { MessageBuildError } from './build-error.js';
import { assertHeaderSafe, encodeWords, foldAtSpaces } from './header-encoding.js';

export interface SplitAddress {
  /** Display name with quoting removed; `''` when there is none. */
  name: string;
  /** Bare `local@domain`, the domain as A-labels (punycode); the local part may be UTF-8. */
  address: string;
}

/** One `@`; no whitespace, control, or anything that ends, quotes or separates an address. */

const ADDR_SPEC = /^[^\s\x00-\x1f\x7f<>()[\]\\,;:"@]+@[^\s\x00-\x1f\x7f<>()[\]\\,;:"@]+$/;
const NON_ASCII = /[^\x20-\x7e]/;
/** Anything beyond US-ASCII: once the domain is A-labels, only a UTF-8 local part has it. */
const BEYOND_ASCII = /[^\x00-\x7f]/;
/** A display name that is a plain RFC 5322 phrase: atext words separated by single spaces. */
const ATOM_PHRASE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?: [A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const PRINTABLE = /^[\x20-\x7e]*$/;
const QUOTED_SPECIALS = /[\\"]/g;
/** Encoded words in a display name: short enough that `Reply-To: ` plus one stays within 78. */
const NAME_WORD = 60;
/** A stretch without spaces that could not be folded within 78 columns. */
const UNFOLDABLE_RUN = /[^ ]{60}/;

/** A whole quoted display name: `"…"` with inner quotes and backslashes escaped. */
const QUOTED_NAME = /^"(?:[^"\\]|\\.)*"$/;
const BARE_NAME_FORBIDDEN = /[<>"]/;

/**
 * Splits one validated address into display name and bare address, reading it as core does
 * (`splitMailbox`: the address between the last `<` and a final `>`), then checks both parts.
 */
export function splitAddress(input: string): SplitAddress {
  assertHeaderSafe(input, 'address');
  const split = splitMailbox(input);
  let name = split.name;
  if (QUOTED_NAME.test(name)) {
    name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  } else if (BARE_NAME_FORBIDDEN.test(name)) {
    throw new MessageBuildError('invalid_address', 'display name holds <, > or " outside quotes');
  }
  return { name, address: normaliseAddress(split.address) };
}

/** Checks the bare address and converts an internationalised domain to A-labels (RFC 5890). */
function normaliseAddress(address: string): string {
  if (!ADDR_SPEC.test(address)) {
    throw new MessageBuildError('invalid_address', 'address is not a single local@domain');
  }
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  // a non-ASCII local part stays UTF-8 (RFC 6531/6532); the transport negotiates SMTPUTF8
  if (!NON_ASCII.test(domain)) return address;
  const aLabels = domainToASCII(domain);
  if (aLabels === '') throw new MessageBuildError('invalid_address', 'address has an invalid domain');
  return `${address.slice(0, at)}@${aLabels}`;
}

/**
 * Renders the display-name part: as is, quoted, or RFC 2047 encoded words. Encoded words also
 * stand in for ASCII that looks like an encoded word or has a run too long to fold.
 */
function phrase(name: string): string {
  if (!name.includes('=?') && !UNFOLDABLE_RUN.test(name)) {
    if (ATOM_PHRASE.test(name)) return name;
    if (PRINTABLE.test(name)) return `"${name.replace(QUOTED_SPECIALS, '\\$&')}"`;
  }
  return encodeWords(name, NAME_WORD, NAME_WORD).join(' ');
}

/**
 * Whether a bare address (as {@link splitAddress} returns it) can only travel with SMTPUTF8
 * (RFC 6531): its local part is UTF-8. An internationalised domain alone never needs it.
 */
export function needsSmtpUtf8(address: string): boolean {
  return BEYOND_ASCII.test(address);
}

/** `Name <addr>` or `<addr>`... as a header mailbox. */
function formatMailbox(a: SplitAddress): string {
  return a.name === '' ? a.address : `${phrase(a.name)} <${a.address}>`;
}

/**
 * A mailbox for a message sent without SMTPUTF8, where a UTF-8 local part may not appear
 * (RFC 6532 header fields need SMTPUTF8 on every hop). Such a mailbox becomes an empty group
 * whose display name carries `Name <addr>` as RFC 2047 encoded words, e.g.
 * `=?UTF-8?Q?Jos=C3=A9_<jos=C3=A9@example.com>?= :;`: the downgrade RFC 6857 describes for
 * address header fields. Readers still see who the message was addressed to; nothing is
 * deliverable through it. ASCII mailboxes are rendered as by {@link formatMailbox}.
 */
function formatAsciiMailbox(a: SplitAddress): string {
  if (!needsSmtpUtf8(a.address)) return formatMailbox(a);
  const shown = a.name === '' ? a.address : `${a.name} <${a.address}>`;
  return `${encodeWords(shown, NAME_WORD, NAME_WORD).join(' ')} :;`;
}

/**
 * A folded address-list header (`To: a, "B" <b@x>`), or `''` when the list is empty. With
 * `ascii`, UTF-8 mailboxes are downgraded ({@link formatAsciiMailbox}).
 */
export function addressHeader(name: string, list: readonly SplitAddress[], ascii = false): string {
  if (list.length === 0) return '';
  const format = ascii ? formatAsciiMailbox : formatMailbox;
  let line = `${name}: `;
  for (let i = 0; i < list.length; i++) {
    line += i === 0 ? format(list[i]!) : `, ${format(list[i]!)}`;
  }
  return `${foldAtSpaces(line)}\r\n`;
}
