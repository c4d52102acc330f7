/**
 * MTA-STS (RFC 8461) rules of direct delivery. Pure: the DNS lookup and the HTTPS fetch are the
 * mailer's; this decides what a policy allows and when a cached one may still be used.
 */

/** RFC 8461 section 3.2: `enforce`, `testing` or `none`. */
export type StsMode = 'enforce' | 'testing' | 'none';

export interface StsPolicy {
  /** The `id` of the `_mta-sts` TXT record the policy was fetched under (RFC 8461 section 3.1). */
  id: string;
  mode: StsMode;
  /** The `mx` patterns, lower-cased: a host name or `*.` and a domain. */
  mx: string[];
  /** `max_age` in seconds: how long the policy may be cached (RFC 8461 section 3.2). */
  maxAgeS: number;
  /** The policy file's lines as fetched, for TLS-RPT's `policy-string` (RFC 8460 section 4.3). */
  lines: string[];
  /** When it was fetched (ms since the epoch). */
  fetchedAtMs: number;
}

const trimDot = (name: string): string => name.trim().replace(/\.$/, '').toLowerCase();

/**
 * RFC 8461 section 4.1: an `mx` pattern is a host name matched exactly, or `*.` followed by a
 * domain matching exactly ONE more label on the left (`*.example.com` matches `mx1.example.com`,
 * neither `example.com` nor `a.mx1.example.com`) — the rule of RFC 6125 section 6.4.3 for
 * certificate names. Case-insensitive, a trailing root dot ignored.
 */
export function mxPatternMatches(pattern: string, host: string): boolean {
  const p = trimDot(pattern);
  const h = trimDot(host);
  if (p === '' || h === '') return false;
  if (!p.startsWith('*.')) return p === h;
  const suffix = p.slice(1); // ".example.com"
  if (!h.endsWith(suffix)) return false;
  const label = h.slice(0, h.length - suffix.length);
  return label.length > 0 && !label.includes('.');
}

/** Whether delivery to this MX host is allowed by the policy's `mx` lines (any mode). */
export function policyListsMx(policy: Pick<StsPolicy, 'mx'>, host: string): boolean {
  return policy.mx.some((pattern) => mxPatternMatches(pattern, host));
}

/** The policy may still be used: fetched less than `max_age` ago (RFC 8461 section 5.1). */
export function policyFresh(policy: Pick<StsPolicy, 'fetchedAtMs' | 'maxAgeS'>, nowMs: number): boolean {
  return nowMs < policy.fetchedAtMs + policy.maxAgeS * 1000;
}

/** What the TXT lookup said: a policy id, no record, or a failed lookup. */
export type StsTxtLookup = { kind: 'id'; id: string } | { kind: 'none' } | { kind: 'error'; detail: string };

/**
 * What to do with a cached policy given the current TXT lookup (RFC 8461 sections 3.3 and 5.1):
 * - no cached or an expired one and a record: fetch;
 * - a fresh one under the same id: use it (no fetch);
 * - a fresh one under another id: fetch (and keep the cached one should the fetch fail);
 * - a fresh one and no record or a failed lookup: keep using it — an attacker who removes the
 *   TXT record must not turn the policy off before max_age (section 10.2);
 * - nothing cached and no record: no policy; a failed lookup: no policy now (RFC 8461 treats a
 *   domain without a known policy as one without MTA-STS).
 */
export function policyAction(
  cached: StsPolicy | undefined,
  txt: StsTxtLookup,
  nowMs: number,
): 'use-cached' | 'fetch' | 'no-policy' {
  const fresh = cached !== undefined && policyFresh(cached, nowMs);
  if (txt.kind === 'id') return fresh && cached.id === txt.id ? 'use-cached' : 'fetch';
  return fresh ? 'use-cached' : 'no-policy';
}

/**
 * Which MX hosts may be tried under the policy, in the route's order. `enforce`: only the
 * listed ones (RFC 8461 section 5: an MX that does not match is not a candidate, never a
 * fallback); `testing` and `none`: all of them, and `unlisted` names the ones a report counts
 * as failures.
 */
export function stsCandidates(
  policy: Pick<StsPolicy, 'mode' | 'mx'> | undefined,
  hosts: readonly string[],
): { hosts: string[]; unlisted: string[] } {
  if (!policy || policy.mode === 'none') return { hosts: [...hosts], unlisted: [] };
  const unlisted = hosts.filter((h) => !policyListsMx(policy, h));
  return {
    hosts: policy.mode === 'enforce' ? hosts.filter((h) => !unlisted.includes(h)) : [...hosts],
    unlisted,
  };
}
