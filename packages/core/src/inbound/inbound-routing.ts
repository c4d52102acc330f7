/**
 * Where a recipient of the inbound (MX) server goes:
 *
 * 1. any address at BOUNCE_DOMAIN → the report processor (VERP return paths and the addresses
 *    registered with feedback loops);
 * 2. a receiving domain (INBOUND_DOMAINS, `domain` for the default team or `domain=<teamId>`)
 *    → that team's received emails. The operator's configuration wins over step 3: a team
 *    registers a sending domain (and so its return-path subdomain) before proving it owns it,
 *    and must not divert a configured domain's mail that way;
 * 3. any address at the return-path subdomain of a team's sending domain (`send.example.com`,
 *    where the published MX sends its DSNs) → the report processor, scoped to that team. Any
 *    local part, like BOUNCE_DOMAIN: a DSN goes to the envelope sender (RFC 3464 section 2,
 *    RFC 5321 section 4.5.5), which is `bounces+<emailId>@` there, and what else a domain's
 *    return path receives is still a report to read, never mail to store;
 * 4. an address that is an inbox of a team (`resend.inboxes.*`) on one of that team's own
 *    domains, `verified` with receiving enabled → that team's received emails (and so its
 *    inbox). Only the inbox's address: the team proved it controls the domain's DNS, but no
 *    other address of the domain was asked for, and the operator's configuration and the
 *    reports of steps 1–3 come first;
 * 5. anything else → nowhere: RCPT is refused with 550 and nothing is relayed (RFC 5321
 *    section 3.6.2: a server that is no relay refuses mail for domains it does not serve).
 *
 * Domains match exactly, case-insensitively and in A-label form for an IDN (RFC 5890); a
 * subdomain of a receiving domain is not one. Return-path domains come from a port (the store's
 * global index); the adapter caches its answers, negative ones included, so a flood of RCPTs
 * to unknown domains costs little.
 */
import { addressDomain, mailboxKey, routingDomain } from '../kernel/mailbox.js';

/** The team owning each return-path subdomain of the teams' sending domains. */
export interface ReturnPathDomains {
  /** The team whose sending domain has `domain` (lower case, A-labels) as return path, or null. */
  teamOf(domain: string): Promise<string | null>;
}

/** A domain of a team as the inbox rule reads it (the domains feature's status and capability). */
export interface InboxDomainState {
  status: string;
  receiving: string;
}

/** The teams' inboxes, by address. */
export interface InboxAddresses {
  /**
   * The team with an inbox at `address` (lower case) and the state of the team's domain the
   * inbox is at (null: not one of the team's domains, e.g. an INBOUND_DOMAINS one, or gone).
   */
  inboxAt(address: string): Promise<{ teamId: string; domain: InboxDomainState | null } | null>;
}

/** True when an inbox's domain takes mail: verified, with receiving enabled (domains.ts). */
export const receivesMail = (d: InboxDomainState | null): boolean =>
  d !== null && d.status === 'verified' && d.receiving === 'enabled';

export type InboundRoute =
  | { kind: 'receive'; teamId: string }
  /** `returnPath` when the address is at a team's return-path domain rather than BOUNCE_DOMAIN. */
  | { kind: 'bounce'; returnPath?: { domain: string; teamId: string } };

/** A receiving domain as configured (INBOUND_DOMAINS); no team → the default team. */
export interface ReceivingDomain {
  domain: string;
  teamId?: string | null | undefined;
}

export class InboundRouter {
  private readonly teams = new Map<string, string>();
  private readonly bounceDomain: string | undefined;
  private readonly returnPaths: ReturnPathDomains | undefined;
  private readonly inboxes: InboxAddresses | undefined;

  constructor(opts: {
    domains: readonly ReceivingDomain[];
    bounceDomain: string | undefined;
    defaultTeamId: string;
    /** Absent: no sending domains are served (only BOUNCE_DOMAIN takes reports). */
    returnPaths?: ReturnPathDomains;
    /** Absent: no inbox at a team's verified domain receives mail. */
    inboxes?: InboxAddresses;
  }) {
    for (const d of opts.domains) this.teams.set(routingDomain(d.domain), d.teamId ?? opts.defaultTeamId);
    this.bounceDomain = opts.bounceDomain ? routingDomain(opts.bounceDomain) : undefined;
    this.returnPaths = opts.returnPaths;
    this.inboxes = opts.inboxes;
  }

  /** The route of `address`, or null when this server takes no mail for it. */
  async route(address: string): Promise<InboundRoute | null> {
    const domain = addressDomain(address);
    if (domain === null) return null;
    if (domain === this.bounceDomain) return { kind: 'bounce' };
    const teamId = this.teams.get(domain);
    if (teamId !== undefined) return { kind: 'receive', teamId };
    const owner = this.returnPaths ? await this.returnPaths.teamOf(domain) : null;
    if (owner !== null) return { kind: 'bounce', returnPath: { domain, teamId: owner } };
    const inbox = this.inboxes ? await this.inboxes.inboxAt(mailboxKey(address)) : null;
    return inbox !== null && receivesMail(inbox.domain) ? { kind: 'receive', teamId: inbox.teamId } : null;
  }

  /** Every team a receiving domain names (to check at start that they exist). */
  teamIds(): string[] {
    return [...new Set(this.teams.values())];
  }
}
