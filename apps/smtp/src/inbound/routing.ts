/**
 * Where a recipient of the inbound server goes: a receiving domain's team (INBOUND_DOMAINS,
 * `domain` for the default team or `domain=<teamId>`), the bounce processor (any address at
 * BOUNCE_DOMAIN: VERP return paths, and the addresses registered with feedback loops), or
 * nowhere — then RCPT is refused with 550 and nothing is relayed (RFC 5321 section 3.6.2: a
 * server that is no relay refuses mail for domains it does not serve).
 *
 * Domains match exactly, case-insensitively and in A-label form for an IDN (RFC 5890); a
 * subdomain of a receiving domain is not one.
 */
import { domainToASCII } from 'node:url';
import type { InboundDomain } from '@petrel/config';

export type Route = { kind: 'receive'; teamId: string } | { kind: 'bounce' };

const asciiDomain = (d: string): string => (domainToASCII(d.toLowerCase()) || d).toLowerCase();

export class InboundRouter {
  private readonly teams = new Map<string, string>();
  private readonly bounceDomain: string | undefined;

  constructor(opts: {
    domains: readonly InboundDomain[];
    bounceDomain: string | undefined;
    defaultTeamId: string;
  }) {
    for (const d of opts.domains) this.teams.set(asciiDomain(d.domain), d.teamId ?? opts.defaultTeamId);
    this.bounceDomain = opts.bounceDomain ? asciiDomain(opts.bounceDomain) : undefined;
  }

  /** The route of `address`, or null when this server takes no mail for it. */
  route(address: string): Route | null {
    const at = address.lastIndexOf('@');
    if (at <= 0 || at === address.length - 1) return null;
    const domain = asciiDomain(address.slice(at + 1));
    if (domain === this.bounceDomain) return { kind: 'bounce' };
    const teamId = this.teams.get(domain);
    return teamId === undefined ? null : { kind: 'receive', teamId };
  }

  /** Every team a receiving domain names (to check at start that they exist). */
  teamIds(): string[] {
    return [...new Set(this.teams.values())];
  }
}
