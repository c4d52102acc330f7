/**
 * What sending asks of a domain: whether it may be a `from` domain (its sending records are
 * verified), the from-domain of an email, and the domains its identity headers name.
 */
import type { DomainRecordSet } from '@petrel/contracts';
import { parseAddress } from '../kernel/mailbox.js';
import { normalizeDomainName } from './domain-schemas.js';

/** The record keys of the sending capability (DKIM per key, SPF MX and TXT), see domain-records.ts. */
export function sendingRecordKeys(domain: Pick<DomainRecordSet, 'dkim'>): string[] {
  return [...domain.dkim.map((k) => `dkim:${k.selector}`), 'spf:mx', 'spf:txt'];
}

/** Sending enabled and every sending record verified at the last check. */
export function sendingVerified(domain: Pick<DomainRecordSet, 'dkim' | 'checks' | 'capabilities'>): boolean {
  return (
    domain.capabilities.sending === 'enabled' &&
    sendingRecordKeys(domain).every((key) => domain.checks[key] === 'verified')
  );
}

/** The normalized domain of a `from` value (`Name <a@b>` or `a@b`); null when it does not parse. */
export function fromDomain(from: string): string | null {
  const parsed = parseAddress(from);
  if (!parsed.ok) return null;
  return normalizeDomainName(parsed.address.slice(parsed.address.lastIndexOf('@') + 1));
}

/**
 * Custom headers that name who sent a message, beside From: the agent that sent it on the
 * author's behalf (`Sender`, RFC 5322 section 3.6.2) and who re-sent it (`Resent-From`,
 * `Resent-Sender`, section 3.6.6). Mail clients show them ("on behalf of") and DMARC-style
 * checks and filters read them, so a key that may only send from one domain may name only that
 * domain there too.
 */
export const IDENTITY_HEADERS: ReadonlySet<string> = new Set(['sender', 'resent-from', 'resent-sender']);

/**
 * The normalized domains of an identity header's value — one mailbox or a comma-separated list,
 * each `local@domain` or `Name <local@domain>` as the API accepts addresses — or null when any
 * entry does not parse (a group, a comment, an obsolete form): what cannot be read is not
 * trusted.
 */
export function identityDomains(value: string): string[] | null {
  const entries = splitMailboxList(value);
  if (entries === null || entries.length === 0) return null;
  const domains: string[] = [];
  for (const entry of entries) {
    const domain = fromDomain(entry);
    if (domain === null) return null;
    domains.push(domain);
  }
  return [...new Set(domains)];
}

/** Splits at the commas outside quoted strings and angle brackets; null when they are unbalanced. */
function splitMailboxList(value: string): string[] | null {
  const out: string[] = [];
  let start = 0;
  let quoted = false;
  let angle = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '<') angle = true;
    else if (c === '>') angle = false;
    else if (c === ',' && !angle) {
      out.push(value.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted || angle) return null;
  out.push(value.slice(start).trim());
  return out;
}
