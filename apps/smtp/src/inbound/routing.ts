/**
 * The inbound server's routing (core's InboundRouter, inbound-routing.ts) over the store's
 * return-path index and its inbox route index, each answer cached briefly: RCPT TO asks for
 * every recipient, and a flood of recipients at domains no team has must not be one Redis read
 * each (negative answers are cached too). A domain or inbox created or deleted, or a domain
 * verified, is seen after at most RETURN_PATH_CACHE_MS.
 */
import { LRUCache } from 'lru-cache';
import type { InboundDomain } from '@petrel/config';
import {
  InboundRouter,
  type InboxAddresses,
  type InboxDomainState,
  type ReturnPathDomains,
} from '@petrel/core';
import type { DomainsStore, InboxesStore } from '@petrel/store';

const RETURN_PATH_CACHE_MS = 10_000;
const RETURN_PATH_CACHE_ENTRIES = 10_000;
/** The cached answer "no team", as lru-cache holds no null. */
const NONE = '';

/** `lookup` (the store's return-path index), cached: a team id or NONE per domain. */
export function cachedReturnPathDomains(
  lookup: Pick<DomainsStore, 'returnPathTeam'>,
  ttlMs = RETURN_PATH_CACHE_MS,
): ReturnPathDomains {
  const cache = new LRUCache<string, string>({
    max: RETURN_PATH_CACHE_ENTRIES,
    ttl: ttlMs,
    fetchMethod: async (domain) => (await lookup.returnPathTeam(domain)) ?? NONE,
  });
  return {
    async teamOf(domain) {
      const team = await cache.fetch(domain);
      return team === undefined || team === NONE ? null : team;
    },
  };
}

type InboxAt = { teamId: string; domain: InboxDomainState | null };

/** The teams' inboxes by address (the store's route index and the domain each is at), cached. */
function cachedInboxAddresses(
  inboxes: Pick<InboxesStore, 'inboxRoute'>,
  domains: Pick<DomainsStore, 'get'>,
  ttlMs = RETURN_PATH_CACHE_MS,
): InboxAddresses {
  const cache = new LRUCache<string, InboxAt | typeof NONE>({
    max: RETURN_PATH_CACHE_ENTRIES,
    ttl: ttlMs,
    fetchMethod: async (address) => {
      const route = await inboxes.inboxRoute(address);
      if (!route) return NONE;
      const d = await domains.get(route.teamId, route.domainId);
      return {
        teamId: route.teamId,
        domain: d && { status: d.status, receiving: d.capabilities.receiving },
      };
    },
  });
  return {
    async inboxAt(address) {
      const hit = await cache.fetch(address);
      return hit === undefined || hit === NONE ? null : hit;
    },
  };
}

export function inboundRouter(opts: {
  domains: readonly InboundDomain[];
  bounceDomain: string | undefined;
  defaultTeamId: string;
  domainsStore: Pick<DomainsStore, 'returnPathTeam' | 'get'>;
  inboxesStore: Pick<InboxesStore, 'inboxRoute'>;
}): InboundRouter {
  const { domainsStore, inboxesStore, ...rest } = opts;
  return new InboundRouter({
    ...rest,
    returnPaths: cachedReturnPathDomains(domainsStore),
    inboxes: cachedInboxAddresses(inboxesStore, domainsStore),
  });
}
