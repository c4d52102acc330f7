/**
 * Where a webhook may be delivered (OWASP SSRF Prevention Cheat Sheet): http or https only, and
 * never to loopback, private, link-local (cloud metadata), CGNAT, unique-local or reserved
 * addresses — whatever spelling the URL uses (decimal, hex, octal IPv4 and mapped IPv6 are read
 * as the WHATWG URL parser reads them) and whatever a name resolves to (every address of the
 * answer must be public). Special-use names (RFC 6761 `localhost`, RFC 6762 `.local`, `.internal`
 * as cloud metadata hosts use) are refused without asking DNS.
 *
 * The same check runs at creation (422) and before every attempt, whose connection then goes to
 * the vetted address only (the name is resolved once per attempt: a DNS answer that changes in
 * between is never used). The address rule is net/ip-policy.ts's: every block of the IANA
 * special-purpose registries that is not globally reachable is refused.
 * WEBHOOK_ALLOW_PRIVATE_NETWORKS=true opens loopback, private-use, shared, link-local and
 * unique-local networks (the rows marked `privateNetwork` in special-purpose-addresses.ts) and
 * the special-use names; documentation, benchmarking, reserved, broadcast and multicast
 * addresses stay refused.
 */
import { isIP } from 'node:net';
import { describeForbidden, forbiddenDestination, parseUrlHost } from '../net/ip-policy.js';
import { isHttpScheme, parseUrl } from '../kernel/url.js';

/** Resolves a host name to all its addresses (the system resolver in production). */
export type HostResolver = (name: string) => Promise<string[]>;

export type VettedEndpoint =
  | { ok: true; url: URL; address: string; family: 4 | 6; host: string }
  /** `unresolved`: the name did not resolve (may be transient: a delivery retries it). */
  | { ok: false; reason: string; unresolved?: true };

const SPECIAL_USE = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)\.?$/i;

/** The URL's syntax only: http(s), a host, no credentials. Returns the broken rule or undefined. */
export function endpointUrlRule(value: string): string | undefined {
  const url = parseUrl(value);
  if (url === null || !isHttpScheme(url)) return 'must be an absolute http or https URL';
  if (!parseUrlHost(url)) return 'must be an http or https URL with a host';
  if (url.username || url.password) return 'must not contain credentials';
  return undefined;
}

/**
 * Checks `endpoint` and picks the address to connect to. With `allowPrivate`, the private
 * networks are open (names still resolve once, so the connection is pinned the same way).
 */
export async function vetEndpoint(
  endpoint: string,
  opts: { allowPrivate: boolean; resolve: HostResolver },
): Promise<VettedEndpoint> {
  const broken = endpointUrlRule(endpoint);
  if (broken) return { ok: false, reason: broken };
  const url = new URL(endpoint);
  const host = parseUrlHost(url)!;
  const policy = { allowPrivateNetworks: opts.allowPrivate };
  const refuse = (what: string): VettedEndpoint => ({
    ok: false,
    reason: `${what}; webhooks are delivered to public hosts only`,
  });
  if (host.kind === 'ip') {
    const forbidden = forbiddenDestination(host.address, policy);
    if (forbidden) return refuse(`${host.address} is ${describeForbidden(forbidden)}`);
    return { ok: true, url, address: host.address, family: host.family, host: host.address };
  }
  if (!opts.allowPrivate && SPECIAL_USE.test(host.name))
    return refuse(`${host.name} is a special-use name of a private or reserved network`);
  let addresses: string[];
  try {
    addresses = await opts.resolve(host.name);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      ok: false,
      reason: `could not resolve ${host.name}${typeof code === 'string' ? ` (${code})` : ''}`,
      unresolved: true,
    };
  }
  const usable = addresses.filter((a) => isIP(a) !== 0);
  if (usable.length === 0) return { ok: false, reason: `could not resolve ${host.name}`, unresolved: true };
  // The address a name resolves to is not echoed: it would map the deployment's internal DNS.
  if (usable.some((a) => forbiddenDestination(a, policy) !== undefined))
    return refuse(`${host.name} resolves to a private or reserved network address`);
  const address = usable[0]!;
  return { ok: true, url, address, family: isIP(address) === 6 ? 6 : 4, host: host.name };
}

/**
 * The check of an endpoint given to POST/PATCH /webhooks: `vetEndpoint`, except that with
 * private networks allowed a name is not resolved (a development machine may have no DNS for it
 * yet; every delivery resolves and checks anew); an IP literal is still judged.
 */
export async function vetNewEndpoint(
  endpoint: string,
  opts: { allowPrivate: boolean; resolve: HostResolver },
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const broken = endpointUrlRule(endpoint);
  if (broken) return { ok: false, reason: broken };
  if (!opts.allowPrivate || parseUrlHost(endpoint)?.kind === 'ip') return vetEndpoint(endpoint, opts);
  return { ok: true };
}
