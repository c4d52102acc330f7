/**
 * The DNS lookups of direct delivery (node:dns/promises Resolver on DNS_SERVERS, or the
 * system's), cached: every email to gmail.com must not cost an MX query.
 *
 * - MX answers are kept `mxTtlMs` (node's resolveMx does not report the records' TTL);
 *   NXDOMAIN and NODATA answers too (RFC 2308 negative caching), a failure never (it is retried).
 * - A/AAAA answers are kept for their own TTL, within [1 s, mxTtlMs].
 * - A host's addresses are IPv4 first, then IPv6: a sending host without an IPv6 route fails
 *   fast on those, and most MX hosts are reachable over IPv4.
 */
import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import { LRUCache } from 'lru-cache';
import type { MxLookup } from './mx-route.js';

export type AddressLookup =
  | { kind: 'addresses'; addresses: string[] }
  /** The name exists without addresses, or does not exist. */
  | { kind: 'none'; detail: string }
  | { kind: 'temporary'; detail: string };

export type TxtLookup =
  | { kind: 'records'; records: string[] }
  /** NXDOMAIN or NODATA: the name has no TXT record. */
  | { kind: 'none' }
  | { kind: 'temporary'; detail: string };

/** The lookups direct delivery makes; tests may pass their own. */
export interface DirectDns {
  mx(domain: string): Promise<MxLookup>;
  addresses(host: string): Promise<AddressLookup>;
  /** TXT records (MTA-STS `_mta-sts`, TLS-RPT `_smtp._tls`), each one's strings joined. */
  txt(name: string): Promise<TxtLookup>;
}

export interface DirectDnsOptions {
  /** `ip` or `ip:port` entries (Resolver#setServers); empty: the system's resolvers. */
  servers?: readonly string[];
  mxTtlMs: number;
  /** Names kept in each cache. */
  maxEntries?: number;
  /** Per query try, in ms (c-ares `timeout`). */
  timeoutMs?: number;
  /** Tries per query (c-ares `tries`). */
  tries?: number;
}

const NODATA = 'ENODATA';
const NXDOMAIN = 'ENOTFOUND';
const MIN_ADDRESS_TTL_MS = 1_000;
const DEFAULT_MAX_ENTRIES = 10_000;

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : 'EUNKNOWN';
}

export function createDirectDns(opts: DirectDnsOptions): DirectDns {
  const resolver = new Resolver({ timeout: opts.timeoutMs ?? 5_000, tries: opts.tries ?? 2 });
  if (opts.servers !== undefined && opts.servers.length > 0) resolver.setServers([...opts.servers]);
  const max = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const mxCache = new LRUCache<string, MxLookup>({ max, ttl: Math.max(1, opts.mxTtlMs) });
  const addressCache = new LRUCache<string, AddressLookup>({ max, ttl: Math.max(1, opts.mxTtlMs) });
  const cacheable = opts.mxTtlMs > 0;

  async function mx(domain: string): Promise<MxLookup> {
    const cached = mxCache.get(domain);
    if (cached) return cached;
    let lookup: MxLookup;
    try {
      const records = await resolver.resolveMx(domain);
      lookup = {
        kind: 'records',
        records: records.map((r) => ({ exchange: r.exchange, priority: r.priority })),
      };
    } catch (err) {
      const code = errorCode(err);
      if (code === NODATA) lookup = { kind: 'nodata' };
      else if (code === NXDOMAIN) lookup = { kind: 'nxdomain' };
      else return { kind: 'temporary', detail: code };
    }
    if (cacheable) mxCache.set(domain, lookup);
    return lookup;
  }

  /** One family: the addresses and the lowest TTL, 'none' for NXDOMAIN/NODATA, or the error. */
  async function family(
    host: string,
    query: (h: string) => Promise<{ address: string; ttl: number }[]>,
  ): Promise<{ addresses: string[]; ttlMs: number } | 'none' | { error: string }> {
    try {
      const records = await query(host);
      if (records.length === 0) return 'none';
      const ttl = Math.min(...records.map((r) => r.ttl));
      return { addresses: records.map((r) => r.address), ttlMs: ttl * 1000 };
    } catch (err) {
      const code = errorCode(err);
      return code === NODATA || code === NXDOMAIN ? 'none' : { error: code };
    }
  }

  async function addresses(host: string): Promise<AddressLookup> {
    if (isIP(host) !== 0) return { kind: 'addresses', addresses: [host] };
    const cached = addressCache.get(host);
    if (cached) return cached;
    const [v4, v6] = await Promise.all([
      family(host, (h) => resolver.resolve4(h, { ttl: true })),
      family(host, (h) => resolver.resolve6(h, { ttl: true })),
    ]);
    const found = [v4, v6].filter(
      (f): f is { addresses: string[]; ttlMs: number } => typeof f === 'object' && 'addresses' in f,
    );
    if (found.length > 0) {
      const lookup: AddressLookup = { kind: 'addresses', addresses: found.flatMap((f) => f.addresses) };
      const ttl = Math.min(
        opts.mxTtlMs,
        Math.max(MIN_ADDRESS_TTL_MS, Math.min(...found.map((f) => f.ttlMs))),
      );
      if (cacheable) addressCache.set(host, lookup, { ttl });
      return lookup;
    }
    const failed = [v4, v6].find((f): f is { error: string } => typeof f === 'object' && 'error' in f);
    // one family failing while the other has none is still a failure: the addresses may be there
    if (failed) return { kind: 'temporary', detail: `address lookup for ${host} failed: ${failed.error}` };
    const none: AddressLookup = { kind: 'none', detail: `${host} has no A or AAAA record` };
    if (cacheable) addressCache.set(host, none);
    return none;
  }

  const txtCache = new LRUCache<string, TxtLookup>({ max, ttl: Math.max(1, opts.mxTtlMs) });

  async function txt(name: string): Promise<TxtLookup> {
    const cached = txtCache.get(name);
    if (cached) return cached;
    let lookup: TxtLookup;
    try {
      // RFC 7208 section 3.3 / RFC 8461 section 3.1: a record's strings are one text, concatenated
      lookup = { kind: 'records', records: (await resolver.resolveTxt(name)).map((parts) => parts.join('')) };
    } catch (err) {
      const code = errorCode(err);
      if (code !== NODATA && code !== NXDOMAIN) return { kind: 'temporary', detail: code };
      lookup = { kind: 'none' };
    }
    if (cacheable) txtCache.set(name, lookup);
    return lookup;
  }

  return { mx, addresses, txt };
}
