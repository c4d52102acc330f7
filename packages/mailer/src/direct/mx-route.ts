/**
 * Where mail for a domain goes, decided from what DNS said (RFC 5321 section 5.1). Pure: the
 * lookup is done elsewhere ({@link ./dns.ts}) and handed in as an {@link MxLookup}.
 *
 * - MX records: hosts by ascending preference; hosts of equal preference in random order, so
 *   senders spread over them as RFC 5321 section 5.1 asks ("SHOULD … randomize").
 * - A null MX (RFC 7505: one MX of preference 0 and exchange `.`): the domain takes no mail — a
 *   permanent failure (556 5.1.10), never retried. A null MX mixed with real ones is a
 *   misconfiguration RFC 7505 section 3 forbids; the real ones are used.
 * - No MX at all (NODATA): the domain itself is the host, an "implicit MX" of preference 0
 *   (RFC 5321 section 5.1), reached through its A/AAAA records.
 * - The domain does not exist (NXDOMAIN): permanent (550 5.1.2, bad destination system).
 * - Anything else (SERVFAIL, timeout, no answer): temporary — the retry ladder asks again.
 */

export interface MxRecord {
  /** The host name; `''` (or `.`) is the root, a null MX. */
  exchange: string;
  priority: number;
}

/** What an MX query returned. */
export type MxLookup =
  | { kind: 'records'; records: readonly MxRecord[] }
  /** NOERROR without MX records. */
  | { kind: 'nodata' }
  /** NXDOMAIN. */
  | { kind: 'nxdomain' }
  | { kind: 'temporary'; detail: string };

export type MxRoute =
  /** Hosts to try in order; `implicit` when the domain itself stands in for a missing MX. */
  | { kind: 'hosts'; hosts: string[]; implicit: boolean }
  | { kind: 'bounce'; code: number; enhancedCode: string; detail: string }
  | { kind: 'defer'; detail: string };

/** At most this many MX hosts are tried for one delivery: a long MX list must not hold a job. */
export const MAX_MX_HOSTS = 5;

/** RFC 7505 section 3 reply to a domain with a null MX. */
const NULL_MX_CODE = 556;
const NULL_MX_ENHANCED = '5.1.10';

const canonicalHost = (name: string): string => name.trim().replace(/\.$/, '').toLowerCase();

/**
 * The route for `domain`. `random` returns [0, 1) like Math.random; tests pass a fixed sequence.
 */
export function routeFor(domain: string, lookup: MxLookup, random: () => number = Math.random): MxRoute {
  switch (lookup.kind) {
    case 'temporary':
      return { kind: 'defer', detail: `MX lookup for ${domain} failed: ${lookup.detail}` };
    case 'nxdomain':
      return {
        kind: 'bounce',
        code: 550,
        enhancedCode: '5.1.2',
        detail: `Domain ${domain} does not exist (NXDOMAIN)`,
      };
    case 'nodata':
      return { kind: 'hosts', hosts: [canonicalHost(domain)], implicit: true };
    case 'records':
      break;
  }
  const real = lookup.records.filter((r) => canonicalHost(r.exchange) !== '');
  if (real.length === 0) {
    if (lookup.records.length === 0) return { kind: 'hosts', hosts: [canonicalHost(domain)], implicit: true };
    return {
      kind: 'bounce',
      code: NULL_MX_CODE,
      enhancedCode: NULL_MX_ENHANCED,
      detail: `Domain ${domain} does not accept mail (null MX, RFC 7505)`,
    };
  }
  return { kind: 'hosts', hosts: orderMx(real, random).slice(0, MAX_MX_HOSTS), implicit: false };
}

/** Host names by ascending preference, shuffled within a preference, each once. */
export function orderMx(records: readonly MxRecord[], random: () => number = Math.random): string[] {
  const byPreference = new Map<number, string[]>();
  for (const r of records) {
    const list = byPreference.get(r.priority) ?? [];
    list.push(canonicalHost(r.exchange));
    byPreference.set(r.priority, list);
  }
  const out: string[] = [];
  for (const preference of [...byPreference.keys()].sort((a, b) => a - b)) {
    for (const host of shuffle(byPreference.get(preference)!, random)) {
      if (!out.includes(host)) out.push(host);
    }
  }
  return out;
}

/** Fisher–Yates on a copy. */
function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.min(i, Math.floor(random() * (i + 1)));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
