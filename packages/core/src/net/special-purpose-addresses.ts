/**
 * The address blocks an outgoing connection made on behalf of a client (webhook endpoint, remote
 * attachment `path`) must never reach, as data: the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890, updated by RFC 8190; https://www.iana.org/assignments/iana-ipv4-special-registry
 * and https://www.iana.org/assignments/iana-ipv6-special-registry), one row per registry entry,
 * with the registry's "Globally Reachable" column, plus the few blocks that are not in those
 * registries but are no unicast destination either (multicast, deprecated site-local and
 * IPv4-compatible IPv6, the SIIT IPv4-translated form).
 *
 * How a row is read (ip-policy.ts): the most specific row holding an address decides.
 * - `globallyReachable: true` rows are the registry's exceptions inside a larger non-global block
 *   (192.0.0.9/32 in 192.0.0.0/24, 2001:1::1/128 in 2001::/23…): allowed.
 * - `embedsIPv4` rows stand for an IPv4 address (IPv4-mapped, NAT64 well-known prefix, 6to4):
 *   the connection goes to that IPv4 host, so the embedded address is judged instead.
 * - every other row (False, and the registry's N/A of deprecated blocks) is refused;
 *   WEBHOOK_ALLOW_PRIVATE_NETWORKS opens exactly the rows marked `privateNetwork`.
 */

export interface SpecialPurposeBlock {
  /** The registry's Address Block, CIDR notation. */
  block: string;
  /** The registry's Name. */
  name: string;
  /** The RFC that defines the block (the registry's RFC column). */
  rfc: string;
  /**
   * The registry's "Globally Reachable" column; `N/A` where the registry writes N/A (deprecated
   * or tunnelling blocks); `false` for the blocks this table adds from outside the registries.
   */
  globallyReachable: boolean | 'N/A';
  /**
   * Opened by WEBHOOK_ALLOW_PRIVATE_NETWORKS (development, tests, a private deployment whose
   * webhook receivers live on the same network): loopback, RFC 1918 private-use, shared address
   * space, link-local and unique-local — the networks a host or a site is on. Documentation,
   * benchmarking, reserved, broadcast, multicast, NAT64 local-use and the protocol-assignment
   * blocks stay refused even then: no reachable server lives there.
   */
  privateNetwork?: true;
  /**
   * The address carries an IPv4 address that the packets really go to, judged in its place:
   * `low32` in its last 32 bits (RFC 4291 IPv4-mapped, RFC 6052 NAT64), `6to4` in bits 16–47
   * (RFC 3056).
   */
  embedsIPv4?: 'low32' | '6to4';
}

/** IANA IPv4 Special-Purpose Address Registry (and IPv4 multicast). */
export const SPECIAL_PURPOSE_IPV4: readonly SpecialPurposeBlock[] = [
  { block: '0.0.0.0/8', name: '"This network"', rfc: 'RFC 791', globallyReachable: false },
  { block: '0.0.0.0/32', name: '"This host on this network"', rfc: 'RFC 1122', globallyReachable: false },
  {
    block: '10.0.0.0/8',
    name: 'Private-Use',
    rfc: 'RFC 1918',
    globallyReachable: false,
    privateNetwork: true,
  },
  {
    block: '100.64.0.0/10',
    name: 'Shared Address Space',
    rfc: 'RFC 6598',
    globallyReachable: false,
    privateNetwork: true,
  },
  { block: '127.0.0.0/8', name: 'Loopback', rfc: 'RFC 1122', globallyReachable: false, privateNetwork: true },
  {
    block: '169.254.0.0/16',
    name: 'Link Local',
    rfc: 'RFC 3927',
    globallyReachable: false,
    privateNetwork: true,
  },
  {
    block: '172.16.0.0/12',
    name: 'Private-Use',
    rfc: 'RFC 1918',
    globallyReachable: false,
    privateNetwork: true,
  },
  { block: '192.0.0.0/24', name: 'IETF Protocol Assignments', rfc: 'RFC 6890', globallyReachable: false },
  {
    block: '192.0.0.0/29',
    name: 'IPv4 Service Continuity Prefix',
    rfc: 'RFC 7335',
    globallyReachable: false,
  },
  { block: '192.0.0.8/32', name: 'IPv4 dummy address', rfc: 'RFC 7600', globallyReachable: false },
  { block: '192.0.0.9/32', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', globallyReachable: true },
  {
    block: '192.0.0.10/32',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
  },
  { block: '192.0.0.170/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', globallyReachable: false },
  { block: '192.0.0.171/32', name: 'NAT64/DNS64 Discovery', rfc: 'RFC 8880', globallyReachable: false },
  { block: '192.0.2.0/24', name: 'Documentation (TEST-NET-1)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '192.31.196.0/24', name: 'AS112-v4', rfc: 'RFC 7535', globallyReachable: true },
  { block: '192.52.193.0/24', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  {
    block: '192.88.99.0/24',
    name: 'Deprecated (6to4 Relay Anycast)',
    rfc: 'RFC 7526',
    globallyReachable: 'N/A',
  },
  { block: '192.88.99.2/32', name: '6a44-relay anycast address', rfc: 'RFC 6751', globallyReachable: false },
  {
    block: '192.168.0.0/16',
    name: 'Private-Use',
    rfc: 'RFC 1918',
    globallyReachable: false,
    privateNetwork: true,
  },
  {
    block: '192.175.48.0/24',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
  },
  { block: '198.18.0.0/15', name: 'Benchmarking', rfc: 'RFC 2544', globallyReachable: false },
  { block: '198.51.100.0/24', name: 'Documentation (TEST-NET-2)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '203.0.113.0/24', name: 'Documentation (TEST-NET-3)', rfc: 'RFC 5737', globallyReachable: false },
  { block: '240.0.0.0/4', name: 'Reserved', rfc: 'RFC 1112', globallyReachable: false },
  { block: '255.255.255.255/32', name: 'Limited Broadcast', rfc: 'RFC 8190', globallyReachable: false },
  // Not in the special-purpose registry (it has a registry of its own): a multicast group is no
  // server to POST to, and a connection to it can only fail or reach whatever listens locally.
  { block: '224.0.0.0/4', name: 'Multicast', rfc: 'RFC 5771', globallyReachable: false },
];

/** IANA IPv6 Special-Purpose Address Registry (and IPv6 multicast, site-local, IPv4-compatible). */
export const SPECIAL_PURPOSE_IPV6: readonly SpecialPurposeBlock[] = [
  {
    block: '::1/128',
    name: 'Loopback Address',
    rfc: 'RFC 4291',
    globallyReachable: false,
    privateNetwork: true,
  },
  { block: '::/128', name: 'Unspecified Address', rfc: 'RFC 4291', globallyReachable: false },
  {
    block: '::ffff:0:0/96',
    name: 'IPv4-mapped Address',
    rfc: 'RFC 4291',
    globallyReachable: false,
    embedsIPv4: 'low32',
  },
  {
    block: '64:ff9b::/96',
    name: 'IPv4-IPv6 Translat.',
    rfc: 'RFC 6052',
    globallyReachable: true,
    embedsIPv4: 'low32',
  },
  { block: '64:ff9b:1::/48', name: 'IPv4-IPv6 Translat.', rfc: 'RFC 8215', globallyReachable: false },
  { block: '100::/64', name: 'Discard-Only Address Block', rfc: 'RFC 6666', globallyReachable: false },
  { block: '100:0:0:1::/64', name: 'Dummy IPv6 Prefix', rfc: 'RFC 9780', globallyReachable: false },
  { block: '2001::/23', name: 'IETF Protocol Assignments', rfc: 'RFC 2928', globallyReachable: false },
  { block: '2001::/32', name: 'TEREDO', rfc: 'RFC 4380', globallyReachable: 'N/A' },
  { block: '2001:1::1/128', name: 'Port Control Protocol Anycast', rfc: 'RFC 7723', globallyReachable: true },
  {
    block: '2001:1::2/128',
    name: 'Traversal Using Relays around NAT Anycast',
    rfc: 'RFC 8155',
    globallyReachable: true,
  },
  {
    block: '2001:1::3/128',
    name: 'DNS-SD Service Registration Protocol Anycast',
    rfc: 'RFC 9665',
    globallyReachable: true,
  },
  { block: '2001:2::/48', name: 'Benchmarking', rfc: 'RFC 5180', globallyReachable: false },
  { block: '2001:3::/32', name: 'AMT', rfc: 'RFC 7450', globallyReachable: true },
  { block: '2001:4:112::/48', name: 'AS112-v6', rfc: 'RFC 7535', globallyReachable: true },
  {
    block: '2001:10::/28',
    name: 'Deprecated (previously ORCHID)',
    rfc: 'RFC 4843',
    globallyReachable: 'N/A',
  },
  { block: '2001:20::/28', name: 'ORCHIDv2', rfc: 'RFC 7343', globallyReachable: true },
  {
    block: '2001:30::/28',
    name: 'Drone Remote ID Protocol Entity Tags (DETs) Prefix',
    rfc: 'RFC 9374',
    globallyReachable: true,
  },
  { block: '2001:db8::/32', name: 'Documentation', rfc: 'RFC 3849', globallyReachable: false },
  { block: '2002::/16', name: '6to4', rfc: 'RFC 3056', globallyReachable: 'N/A', embedsIPv4: '6to4' },
  {
    block: '2620:4f:8000::/48',
    name: 'Direct Delegation AS112 Service',
    rfc: 'RFC 7534',
    globallyReachable: true,
  },
  { block: '3fff::/20', name: 'Documentation', rfc: 'RFC 9637', globallyReachable: false },
  { block: '5f00::/16', name: 'Segment Routing (SRv6) SIDs', rfc: 'RFC 9602', globallyReachable: false },
  {
    block: 'fc00::/7',
    name: 'Unique-Local',
    rfc: 'RFC 4193',
    globallyReachable: false,
    privateNetwork: true,
  },
  {
    block: 'fe80::/10',
    name: 'Link-Local Unicast',
    rfc: 'RFC 4291',
    globallyReachable: false,
    privateNetwork: true,
  },
  // Not in the special-purpose registry, no unicast destination either:
  { block: 'ff00::/8', name: 'Multicast', rfc: 'RFC 4291', globallyReachable: false },
  { block: 'fec0::/10', name: 'Site-Local (deprecated)', rfc: 'RFC 3879', globallyReachable: false },
  // ::a.b.c.d (deprecated by RFC 4291 section 2.5.5.1): nothing routes it; refused whatever it embeds
  { block: '::/96', name: 'IPv4-Compatible (deprecated)', rfc: 'RFC 4291', globallyReachable: false },
  // ::ffff:0:a.b.c.d, the SIIT translated form: stands for its IPv4 address as a mapped one does
  {
    block: '::ffff:0:0:0/96',
    name: 'IPv4-translated Address',
    rfc: 'RFC 2765',
    globallyReachable: false,
    embedsIPv4: 'low32',
  },
];
