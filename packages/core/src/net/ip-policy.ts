/**
 * SSRF policy (OWASP Server-Side Request Forgery Prevention Cheat Sheet): which addresses an
 * outgoing fetch on behalf of a client (remote attachment `path`, webhook endpoint) must never
 * reach, and how the host of a URL is read. Pure: no DNS, no sockets. Resolving a name and
 * checking every address it resolves to is the caller's job (packages/mailer/src/fetch-attachment.ts,
 * webhooks/endpoint-policy.ts).
 *
 * "Forbidden" means "not a globally reachable unicast destination": every block of the IANA
 * special-purpose address registries whose "Globally Reachable" is not True, and multicast
 * (special-purpose-addresses.ts holds the table), with IPv6 forms that stand for an IPv4 address
 * judged by that address. Anything that is not a well-formed IP literal is refused (fail closed).
 */
import { BlockList } from 'node:net';
import { parseUrl } from '../kernel/url.js';
import {
  SPECIAL_PURPOSE_IPV4,
  SPECIAL_PURPOSE_IPV6,
  type SpecialPurposeBlock,
} from './special-purpose-addresses.js';

/** A strict dotted-quad (`a.b.c.d`, decimal, no leading zeros) as a uint32, or undefined. */
export function parseIPv4(text: string): number | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let out = 0;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    out = out * 256 + n;
  }
  return out;
}

/**
 * An IPv6 literal (optionally in brackets, with an optional `%zone`, with `::` compression and an
 * optional trailing dotted IPv4) as its eight 16-bit groups, or undefined.
 */
export function parseIPv6(text: string): number[] | undefined {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (s === '' || !/^[0-9A-Fa-f:.]+$/.test(s)) return undefined;

  let tail: number[] = [];
  const lastColon = s.lastIndexOf(':');
  if (lastColon < 0) return undefined;
  const last = s.slice(lastColon + 1);
  if (last.includes('.')) {
    const four = parseIPv4(last);
    if (four === undefined) return undefined;
    tail = [four >>> 16, four & 0xffff];
    // Keep the colon(s) before the dotted part: `::1.2.3.4` → `::`, `a::b:1.2.3.4` → `a::b:`.
    s = s.slice(0, lastColon + 1);
    if (s.endsWith(':') && !s.endsWith('::')) s = s.slice(0, -1);
  }
  if (s.includes('.')) return undefined;

  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (half: string): number[] | undefined => {
    if (half === '') return [];
    const out: number[] = [];
    for (const g of half.split(':')) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = groups(halves[0]!);
  if (head === undefined) return undefined;
  if (halves.length === 1) {
    const all = [...head, ...tail];
    return all.length === 8 ? all : undefined;
  }
  const rest = groups(halves[1]!);
  if (rest === undefined) return undefined;
  const known = head.length + rest.length + tail.length;
  if (known > 7) return undefined; // `::` stands for at least one zero group
  return [...head, ...new Array<number>(8 - known).fill(0), ...rest, ...tail];
}

/** A table row as a matcher: its family and a BlockList holding its one subnet. */
interface Row {
  entry: SpecialPurposeBlock;
  family: 'ipv4' | 'ipv6';
  prefix: number;
  list: BlockList;
}

function rowOf(entry: SpecialPurposeBlock, family: Row['family']): Row {
  const [network, bits] = entry.block.split('/') as [string, string];
  const list = new BlockList();
  list.addSubnet(network, Number(bits), family);
  return { entry, family, prefix: Number(bits), list };
}

/** Most specific first: the first row that holds an address is the one that decides. */
const ROWS: readonly Row[] = [
  ...SPECIAL_PURPOSE_IPV4.map((e) => rowOf(e, 'ipv4')),
  ...SPECIAL_PURPOSE_IPV6.map((e) => rowOf(e, 'ipv6')),
].sort((a, b) => b.prefix - a.prefix);

/** Options of the destination check. */
export interface DestinationPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: opens the rows marked `privateNetwork`, and only those. */
  allowPrivateNetworks?: boolean;
}

/** What refuses an address: its special-purpose block, or `not-an-ip` (fail closed). */
export type ForbiddenReason = SpecialPurposeBlock | 'not-an-ip';

const hex = (g: number[]): string => g.map((x) => x.toString(16)).join(':');

function judgeV4(addr: number, policy: DestinationPolicy): SpecialPurposeBlock | undefined {
  const text = [addr >>> 24, (addr >>> 16) & 255, (addr >>> 8) & 255, addr & 255].join('.');
  return judge(text, 'ipv4', undefined, policy);
}

function judge(
  text: string,
  family: Row['family'],
  groups: number[] | undefined,
  policy: DestinationPolicy,
): SpecialPurposeBlock | undefined {
  const row = ROWS.find((r) => r.family === family && r.list.check(text, family));
  if (!row) return undefined; // no special purpose: a public unicast destination
  const { entry } = row;
  if (entry.embedsIPv4 && groups) {
    const [hi, lo] = entry.embedsIPv4 === 'low32' ? [groups[6]!, groups[7]!] : [groups[1]!, groups[2]!];
    return judgeV4(((hi << 16) | lo) >>> 0, policy);
  }
  if (entry.globallyReachable === true) return undefined;
  if (entry.privateNetwork && policy.allowPrivateNetworks) return undefined;
  return entry;
}

/**
 * Why `ip` must not be connected to on behalf of a client, or undefined when it may: the
 * special-purpose block (special-purpose-addresses.ts) that is not globally reachable and holds
 * it — for an IPv6 address that stands for an IPv4 one (mapped, NAT64, 6to4), the IPv4 address's
 * block — or `not-an-ip` for anything that is not a well-formed IP literal (fail closed).
 *
 * Accepts what DNS and the WHATWG URL parser produce: dotted-quad IPv4, IPv6 with or without
 * brackets and zone id. Non-canonical IPv4 spellings (`0x7f.1`, `2130706433`) are not IP literals
 * here — read URLs through `parseUrlHost`, which normalises them.
 */
export function forbiddenDestination(
  ip: string,
  policy: DestinationPolicy = {},
): ForbiddenReason | undefined {
  const four = parseIPv4(ip);
  if (four !== undefined) return judgeV4(four, policy);
  const six = parseIPv6(ip);
  if (six !== undefined) return judge(hex(six), 'ipv6', six, policy);
  return 'not-an-ip';
}

/** `forbiddenDestination` as a yes/no. */
export const isForbiddenDestination = (ip: string, policy: DestinationPolicy = {}): boolean =>
  forbiddenDestination(ip, policy) !== undefined;

/**
 * `a private or reserved network address (<block>, <name>, <RFC>)`: the one wording of why an
 * address is refused, for webhook endpoints and attachment URLs alike.
 */
export function describeForbidden(reason: ForbiddenReason): string {
  const what =
    reason === 'not-an-ip' ? 'not an IP address' : `${reason.block}, ${reason.name}, ${reason.rfc}`;
  return `a private or reserved network address (${what})`;
}

/** The host of a URL: an IP literal (normalised) or a name that still has to be resolved. */
export type UrlHost = { kind: 'ip'; family: 4 | 6; address: string } | { kind: 'name'; name: string };

/**
 * Reads the host of an absolute URL the way the WHATWG URL parser (and so every HTTP client)
 * does: numeric IPv4 spellings are normalised (`http://2130706433`, `http://0x7f.1`,
 * `http://017700000001` → 127.0.0.1), IPv6 literals lose their brackets. Returns undefined when
 * the text is not a URL or has no host.
 */
export function parseUrlHost(input: string | URL): UrlHost | undefined {
  const url = typeof input === 'string' ? parseUrl(input) : input;
  if (url === null || url.hostname === '') return undefined;
  const host = url.hostname;
  if (host.startsWith('[') && host.endsWith(']')) {
    const address = host.slice(1, -1);
    return parseIPv6(address) ? { kind: 'ip', family: 6, address } : undefined;
  }
  if (parseIPv4(host) !== undefined) return { kind: 'ip', family: 4, address: host };
  return { kind: 'name', name: host };
}
