/**
 * The DNS port of domain verification over node:dns/promises: a Resolver of its own (so
 * DNS_SERVERS applies here only, never to the rest of the process), a bounded timeout and one
 * retry per server. Answers sort into what verify-domain.ts needs:
 *
 * - ENOTFOUND (NXDOMAIN) and ENODATA (no record of the type): `none` — the record is missing;
 * - anything else (ESERVFAIL, ETIMEOUT, ECONNREFUSED, EREFUSED…): `error` — DNS could not say.
 *
 * It lives with the store because every process that verifies (API, scheduler) has the store.
 */
import { Resolver } from 'node:dns/promises';
import type { DnsAnswer, DnsPort } from '@petrel/core';

/** Per-try timeout of a lookup (ms) and tries per server: a check stays within seconds. */
export const DNS_LOOKUP_TIMEOUT_MS = 2_000;
export const DNS_LOOKUP_TRIES = 2;

const MISSING = new Set(['ENOTFOUND', 'ENODATA']);

export interface DomainDnsOptions {
  /** `host` or `host:port` (IPv6 as `[addr]:port`); empty: the system's resolvers. */
  servers?: readonly string[];
  timeoutMs?: number;
  tries?: number;
}

export function createDomainDns(opts: DomainDnsOptions = {}): DnsPort {
  const resolver = new Resolver({
    timeout: opts.timeoutMs ?? DNS_LOOKUP_TIMEOUT_MS,
    tries: opts.tries ?? DNS_LOOKUP_TRIES,
  });
  if (opts.servers && opts.servers.length > 0) resolver.setServers([...opts.servers]);
  async function answer<T>(lookup: () => Promise<T[]>): Promise<DnsAnswer<T>> {
    try {
      const values = await lookup();
      return values.length === 0 ? { kind: 'none' } : { kind: 'found', values };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      return MISSING.has(code) ? { kind: 'none' } : { kind: 'error', detail: code };
    }
  }
  return {
    txt: (name) => answer(async () => (await resolver.resolveTxt(name)).map((chunks) => chunks.join(''))),
    mx: (name) => answer(() => resolver.resolveMx(name)),
  };
}
