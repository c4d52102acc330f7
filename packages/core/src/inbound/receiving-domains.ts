/**
 * Which domains a team receives mail at, as the inbox rules read them (an inbox's address must be
 * at one): the team's own domains that take mail (`receivesMail`: verified, receiving enabled)
 * and the operator's INBOUND_DOMAINS given to the team — an entry without a team is the default
 * team's, as inbound routing reads it (inbound-routing.ts).
 */
import type { DomainRecordSet } from '@petrel/contracts';
import { routingDomain } from '../kernel/mailbox.js';
import type { ReceivingDomains } from '../inboxes/ports.js';
import { receivesMail, type ReceivingDomain } from './inbound-routing.js';

/** The team's domains (the domains store's `all`). */
export interface TeamDomainsReader {
  all(teamId: string): Promise<Pick<DomainRecordSet, 'id' | 'name' | 'status' | 'capabilities'>[]>;
}

/** The team's own domains first, then the configured ones (whose domain id is ''). */
export function teamReceivingDomains(opts: {
  configured: readonly ReceivingDomain[];
  defaultTeamId: string;
  domains: TeamDomainsReader;
}): ReceivingDomains {
  return {
    async of(teamId) {
      const configured = opts.configured
        .filter((d) => (d.teamId ?? opts.defaultTeamId) === teamId)
        .map((d) => ({ domain: routingDomain(d.domain), domainId: '' }));
      const own = (await opts.domains.all(teamId))
        .filter((d) => receivesMail({ status: d.status, receiving: d.capabilities.receiving }))
        .map((d) => ({ domain: d.name, domainId: d.id }));
      return [...own, ...configured];
    },
  };
}
