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
 * between is never used). WEBHOOK_ALLOW_PRIVATE_NETWORKS=true turns the address rule off.
 */
import { isIP } from 'node:net';
import { isPrivateAddress, parseUrlHost } from '../net/ip-policy.js';

/** Resolves a host name to all its addresses (the system resolver in production). */
export type HostResolver = (name: string) => Promise<string[]>;

export type VettedEndpoint =
  | { ok: true; url: URL; address: string; family: 4 | 6; host: string }
  /** `unresolved`: the name did not resolve (may be transient: a delivery retries it). */
  | { ok: false; reason: string; unresolved?: true };

const SPECIAL_USE = /(^|\.)(localhost|local|internal|localdomain|home\.arpa)\.?$/i;

/** The URL's syntax only: http(s), a host, no credentials. Returns the broken rule or undefined. */
export function endpointUrlRule(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL';
  if (!parseUrlHost(url)) return 'must be an http or https URL with a host';
  if (url.username || url.password) return 'must not contain credentials';
  return undefined;
}

/**
 * Checks `endpoint` and picks the address to connect to. With `allowPrivate`, any address goes
 * (names still resolve once, so the connection is pinned the same way).
 */
export async function vetEndpoint(
  endpoint: string,
  opts: { allowPrivate: boolean; resolve: HostResolver },
): Promise<VettedEndpoint> {
  const broken = endpointUrlRule(endpoint);
  if (broken) return { ok: false, reason: broken };
  const url = new URL(endpoint);
  const host = parseUrlHost(url)!;
  const refuse = (what: string): VettedEndpoint => ({
    ok: false,
    reason: `${what} is a private or reserved network address; webhooks are delivered to public hosts only`,
  });
  if (host.kind === 'ip') {
    if (!opts.allowPrivate && isPrivateAddress(host.address)) return refuse(host.address);
    return { ok: true, url, address: host.address, family: host.family, host: host.address };
  }
  if (!opts.allowPrivate && SPECIAL_USE.test(host.name)) return refuse(host.name);
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
  if (!opts.allowPrivate && usable.some(isPrivateAddress))
    return refuse(`${host.name} resolves to ${usable.find(isPrivateAddress)!}, which`);
  const address = usable[0]!;
  return { ok: true, url, address, family: isIP(address) === 6 ? 6 : 4, host: host.name };
}

/**
 * The check of an endpoint given to POST/PATCH /webhooks: `vetEndpoint`, except that with
 * private networks allowed there is nothing an address could refuse, so the name is not
 * resolved (a development machine may have no DNS for it yet; every delivery resolves anew).
 */
export async function vetNewEndpoint(
  endpoint: string,
  opts: { allowPrivate: boolean; resolve: HostResolver },
): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (!opts.allowPrivate) return vetEndpoint(endpoint, opts);
  const broken = endpointUrlRule(endpoint);
  return broken ? { ok: false, reason: broken } : { ok: true };
}
