/**
 * Recipients by domain, for direct delivery: each domain has its own MX hosts, so an email to
 * several domains is one SMTP transaction per domain (RFC 5321 section 5.1 routes per domain).
 * Pure. The addresses are the envelope's: bare, internationalised domains as A-labels already.
 */

export interface DomainGroup {
  /** Lower-cased: DNS names are case-insensitive (RFC 4343). */
  domain: string;
  /** In the envelope's order. */
  recipients: string[];
}

/** Groups in the order each domain first appears. */
export function groupByDomain(recipients: readonly string[]): DomainGroup[] {
  const groups = new Map<string, DomainGroup>();
  for (const address of recipients) {
    const domain = address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    let group = groups.get(domain);
    if (!group) {
      group = { domain, recipients: [] };
      groups.set(domain, group);
    }
    group.recipients.push(address);
  }
  return [...groups.values()];
}
