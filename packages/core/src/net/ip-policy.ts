/**
 * SSRF policy (OWASP Server-Side Request Forgery Prevention Cheat Sheet): which addresses an
 * outgoing fetch on behalf of a client (remote attachment `path`, webhook endpoint) must never
 * reach, and how the host of a URL is read. Pure: no DNS, no sockets. Resolving a name and
 * checking every address it resolves to is the caller's job (packages/mailer/src/fetch-attachment.ts).
 *
 * "Private" here means "not a public unicast destination": loopback, RFC 1918, CGNAT, link-local
 * (cloud metadata at 169.254.169.254), unique-local, multicast, broadcast, reserved ranges, and
 * IPv6 forms that embed one of those IPv4 addresses. Anything that is not a well-formed IP literal
 * is treated as private (fail closed).
 */

type Cidr4 = readonly [base: number, bits: number];

const v4 = (a: number, b: number, c: number, d: number): number =>
  ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** IPv4 ranges refused as destinations. */
const PRIVATE_V4: readonly Cidr4[] = [
  [v4(0, 0, 0, 0), 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  [v4(10, 0, 0, 0), 8], // RFC 1918
  [v4(100, 64, 0, 0), 10], // carrier-grade NAT (RFC 6598)
  [v4(127, 0, 0, 0), 8], // loopback
  [v4(169, 254, 0, 0), 16], // link-local, cloud metadata
  [v4(172, 16, 0, 0), 12], // RFC 1918
  [v4(192, 0, 0, 0), 24], // IETF protocol assignments
  [v4(192, 168, 0, 0), 16], // RFC 1918
  [v4(198, 18, 0, 0), 15], // benchmarking
  [v4(224, 0, 0, 0), 4], // multicast
  [v4(240, 0, 0, 0), 4], // reserved, includes 255.255.255.255 (broadcast)
];

function inCidr4(addr: number, [base, bits]: Cidr4): boolean {
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return (addr & mask) >>> 0 === (base & mask) >>> 0;
}

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

function isPrivateV4(addr: number): boolean {
  return PRIVATE_V4.some((c) => inCidr4(addr, c));
}

const embedded = (hi: number, lo: number): number => ((hi << 16) | lo) >>> 0;

function isPrivateV6(g: number[]): boolean {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);

  // ::/96 — the unspecified address, loopback ::1 and the deprecated IPv4-compatible addresses
  // (::a.b.c.d). None is a legitimate public destination; refused whatever they embed.
  if (zeroTo(6)) return true;
  // ::ffff:a.b.c.d — IPv4-mapped (also written ::ffff:7f00:1): judged by the IPv4 address.
  if (zeroTo(5) && g5 === 0xffff) return isPrivateV4(embedded(g6, g7));
  // ::ffff:0:a.b.c.d — IPv4-translated (SIIT, RFC 2765).
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return isPrivateV4(embedded(g6, g7));
  // 64:ff9b::/96 — well-known NAT64 prefix (RFC 6052): judged by the IPv4 address.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) {
    return isPrivateV4(embedded(g6, g7));
  }
  // 64:ff9b:1::/48 — local-use NAT64 (RFC 8215): translated inside the operator's network.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return true;
  // 2002::/16 — 6to4: the next 32 bits are an IPv4 address.
  if (g0 === 0x2002) return isPrivateV4(embedded(g1, g2));
  // 2001::/32 — Teredo tunnels; 2001:db8::/32 — documentation.
  if (g0 === 0x2001 && (g1 === 0 || g1 === 0xdb8)) return true;
  // 100::/64 — discard-only (RFC 6666).
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return true;
  if ((g0 & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((g0 & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((g0 & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return true; // ff00::/8 multicast
  return false;
}

/**
 * True when `ip` must not be connected to on behalf of a client: a private, loopback, link-local,
 * multicast, broadcast or reserved IPv4/IPv6 address, an IPv6 address embedding such an IPv4 one,
 * or anything that is not a well-formed IP literal (fail closed).
 *
 * Accepts what DNS and the WHATWG URL parser produce: dotted-quad IPv4, IPv6 with or without
 * brackets and zone id. Non-canonical IPv4 spellings (`0x7f.1`, `2130706433`) are not IP literals
 * here — read URLs through `parseUrlHost`, which normalises them.
 */
export function isPrivateAddress(ip: string): boolean {
  const four = parseIPv4(ip);
  if (four !== undefined) return isPrivateV4(four);
  const six = parseIPv6(ip);
  if (six !== undefined) return isPrivateV6(six);
  return true;
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
  let url: URL;
  try {
    url = typeof input === 'string' ? new URL(input) : input;
  } catch {
    return undefined;
  }
  const host = url.hostname;
  if (host === '') return undefined;
  if (host.startsWith('[') && host.endsWith(']')) {
    const address = host.slice(1, -1);
    return parseIPv6(address) ? { kind: 'ip', family: 6, address } : undefined;
  }
  if (parseIPv4(host) !== undefined) return { kind: 'ip', family: 4, address: host };
  return { kind: 'name', name: host };
}
