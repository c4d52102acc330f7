/**
 * Periodic domain verification: every domain's DNS records are looked up again every
 * DOMAIN_VERIFY_INTERVAL_S (core's `verifyDomain`: per-record status, the derived domain status,
 * a domain.updated event when either changed), so a record removed from DNS turns the domain
 * `failed` (and its `from` refused when enforced) without anyone asking.
 *
 * The schedule is a global sorted set of the next check of each domain (DomainsStore): a round
 * takes the due ones, checks them a few at a time, and puts each back one interval later — or
 * drops it when its domain is gone. A check that fails (Redis trouble) is retried next interval;
 * DNS trouble is no failure here, it is the record's `temporary_failure`.
 */
import { PetrelError } from '@petrel/contracts';
import { verifyDomain, type DnsPort, type DomainDnsTargets } from '@petrel/core';
import type { DomainsStore } from '@petrel/store';
import { log, metrics } from '@petrel/observability';
import { startIntervalLoop, type IntervalLoop } from './interval-loop.js';

/** Domains one round takes at most, and how many it checks at once. */
const DOMAIN_CHECKS_PER_ROUND = 500;
const DOMAIN_CHECK_CONCURRENCY = 8;
/** The loop wakes at least this often, so a short interval (tests) is honoured and a long one is not late. */
const MAX_TICK_MS = 60_000;

export interface DomainVerifyDeps {
  domains: DomainsStore;
  dns: DnsPort;
  targets: DomainDnsTargets;
  clock: { now(): number };
}

/** One round: check every due domain; returns how many were checked. */
export async function runDomainChecks(deps: DomainVerifyDeps, intervalMs: number): Promise<number> {
  const due = await deps.domains.dueChecks(deps.clock.now(), DOMAIN_CHECKS_PER_ROUND);
  let next = 0;
  let checked = 0;
  const worker = async () => {
    while (next < due.length) {
      const { teamId, domainId } = due[next++]!;
      try {
        const domain = await verifyDomain({ teamId, domainId }, deps);
        metrics.domainChecks().inc({ status: domain.status });
        checked++;
      } catch (err) {
        if (err instanceof PetrelError && err.errorName === 'not_found') {
          await deps.domains.dropCheck(teamId, domainId);
          continue;
        }
        metrics.domainChecks().inc({ status: 'error' });
        log().warn({ err, teamId, domainId }, 'domain check failed; trying again next interval');
      }
      await deps.domains.scheduleCheck(teamId, domainId, deps.clock.now() + intervalMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(DOMAIN_CHECK_CONCURRENCY, due.length) }, worker));
  return checked;
}

export function startDomainVerify(deps: DomainVerifyDeps, intervalMs: number): IntervalLoop {
  return startIntervalLoop(
    () => runDomainChecks(deps, intervalMs),
    Math.min(intervalMs, MAX_TICK_MS),
    (err) => log().error({ err }, 'domain checks round failed; trying again next interval'),
  );
}
