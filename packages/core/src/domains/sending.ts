/**
 * What sending asks of a domain: whether it may be a `from` domain (its sending records are
 * verified) and the from-domain of an email.
 */
import type { DomainRecordSet } from '@petrel/contracts';
import { parseAddress } from '../validation/address.js';
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
