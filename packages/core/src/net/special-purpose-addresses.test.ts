import { describe, expect, it } from 'vitest';
import { forbiddenDestination, isForbiddenDestination } from './ip-policy.js';
import {
  SPECIAL_PURPOSE_IPV4,
  SPECIAL_PURPOSE_IPV6,
  type SpecialPurposeBlock,
} from './special-purpose-addresses.js';

/**
 * One address inside every block of the table (and in no more specific block), written by hand
 * from the registries rather than computed from the table, with what must happen to it:
 * `refused` by that very block, `allowed` (a globally reachable exception), or — for the IPv6
 * forms that stand for an IPv4 address — judged by the embedded address (`embeds`: one sample
 * embedding a public address, allowed; one embedding a TEST-NET address, refused by 192.0.2.0/24).
 */
type Sample =
  | { block: string; address: string; expect: 'refused' | 'allowed' }
  | { block: string; address: string; expect: 'embeds'; embeddingTestNet: string };

const SAMPLES: Sample[] = [
  // IPv4
  { block: '0.0.0.0/8', address: '0.1.2.3', expect: 'refused' },
  { block: '0.0.0.0/32', address: '0.0.0.0', expect: 'refused' },
  { block: '10.0.0.0/8', address: '10.20.30.40', expect: 'refused' },
  { block: '100.64.0.0/10', address: '100.100.100.100', expect: 'refused' },
  { block: '127.0.0.0/8', address: '127.0.0.1', expect: 'refused' },
  { block: '169.254.0.0/16', address: '169.254.169.254', expect: 'refused' },
  { block: '172.16.0.0/12', address: '172.20.0.1', expect: 'refused' },
  { block: '192.0.0.0/24', address: '192.0.0.100', expect: 'refused' },
  { block: '192.0.0.0/29', address: '192.0.0.1', expect: 'refused' },
  { block: '192.0.0.8/32', address: '192.0.0.8', expect: 'refused' },
  { block: '192.0.0.9/32', address: '192.0.0.9', expect: 'allowed' },
  { block: '192.0.0.10/32', address: '192.0.0.10', expect: 'allowed' },
  { block: '192.0.0.170/32', address: '192.0.0.170', expect: 'refused' },
  { block: '192.0.0.171/32', address: '192.0.0.171', expect: 'refused' },
  { block: '192.0.2.0/24', address: '192.0.2.1', expect: 'refused' },
  { block: '192.31.196.0/24', address: '192.31.196.1', expect: 'allowed' },
  { block: '192.52.193.0/24', address: '192.52.193.1', expect: 'allowed' },
  { block: '192.88.99.0/24', address: '192.88.99.1', expect: 'refused' },
  { block: '192.88.99.2/32', address: '192.88.99.2', expect: 'refused' },
  { block: '192.168.0.0/16', address: '192.168.1.1', expect: 'refused' },
  { block: '192.175.48.0/24', address: '192.175.48.6', expect: 'allowed' },
  { block: '198.18.0.0/15', address: '198.19.0.1', expect: 'refused' },
  { block: '198.51.100.0/24', address: '198.51.100.1', expect: 'refused' },
  { block: '203.0.113.0/24', address: '203.0.113.1', expect: 'refused' },
  { block: '240.0.0.0/4', address: '250.1.2.3', expect: 'refused' },
  { block: '255.255.255.255/32', address: '255.255.255.255', expect: 'refused' },
  { block: '224.0.0.0/4', address: '239.255.255.250', expect: 'refused' },
  // IPv6
  { block: '::1/128', address: '::1', expect: 'refused' },
  { block: '::/128', address: '::', expect: 'refused' },
  {
    block: '::ffff:0:0/96',
    address: '::ffff:8.8.8.8',
    expect: 'embeds',
    embeddingTestNet: '::ffff:192.0.2.1',
  },
  {
    block: '64:ff9b::/96',
    address: '64:ff9b::8.8.8.8',
    expect: 'embeds',
    embeddingTestNet: '64:ff9b::192.0.2.1',
  },
  { block: '64:ff9b:1::/48', address: '64:ff9b:1::8.8.8.8', expect: 'refused' },
  { block: '100::/64', address: '100::1', expect: 'refused' },
  { block: '100:0:0:1::/64', address: '100:0:0:1::1', expect: 'refused' },
  { block: '2001::/23', address: '2001:100::1', expect: 'refused' },
  { block: '2001::/32', address: '2001:0:4136:e378:8000:63bf:3fff:fdd2', expect: 'refused' },
  { block: '2001:1::1/128', address: '2001:1::1', expect: 'allowed' },
  { block: '2001:1::2/128', address: '2001:1::2', expect: 'allowed' },
  { block: '2001:1::3/128', address: '2001:1::3', expect: 'allowed' },
  { block: '2001:2::/48', address: '2001:2::1', expect: 'refused' },
  { block: '2001:3::/32', address: '2001:3::1', expect: 'allowed' },
  { block: '2001:4:112::/48', address: '2001:4:112::1', expect: 'allowed' },
  { block: '2001:10::/28', address: '2001:10::1', expect: 'refused' },
  { block: '2001:20::/28', address: '2001:20::1', expect: 'allowed' },
  { block: '2001:30::/28', address: '2001:30::1', expect: 'allowed' },
  { block: '2001:db8::/32', address: '2001:db8::1', expect: 'refused' },
  { block: '2002::/16', address: '2002:808:808::1', expect: 'embeds', embeddingTestNet: '2002:c000:201::1' },
  { block: '2620:4f:8000::/48', address: '2620:4f:8000::42', expect: 'allowed' },
  { block: '3fff::/20', address: '3fff:abc::1', expect: 'refused' },
  { block: '5f00::/16', address: '5f00:1::1', expect: 'refused' },
  { block: 'fc00::/7', address: 'fd12:3456:789a::1', expect: 'refused' },
  { block: 'fe80::/10', address: 'fe80::1', expect: 'refused' },
  { block: 'ff00::/8', address: 'ff02::1', expect: 'refused' },
  { block: 'fec0::/10', address: 'fec0::1', expect: 'refused' },
  { block: '::/96', address: '::8.8.8.8', expect: 'refused' },
  {
    block: '::ffff:0:0:0/96',
    address: '::ffff:0:8.8.8.8',
    expect: 'embeds',
    embeddingTestNet: '::ffff:0:192.0.2.1',
  },
];

const TABLE: readonly SpecialPurposeBlock[] = [...SPECIAL_PURPOSE_IPV4, ...SPECIAL_PURPOSE_IPV6];
const row = (block: string): SpecialPurposeBlock => TABLE.find((r) => r.block === block)!;

describe('the special-purpose table', () => {
  it('has one sample per row, and each row a block, a name and an RFC', () => {
    expect(SAMPLES.map((s) => s.block).sort()).toEqual(TABLE.map((r) => r.block).sort());
    for (const r of TABLE) {
      expect(r.name, r.block).not.toBe('');
      expect(r.rfc, r.block).toMatch(/^RFC \d+$/);
    }
  });

  it('marks as globally reachable exactly the rows whose sample is allowed', () => {
    for (const s of SAMPLES) {
      if (s.expect === 'embeds') continue;
      expect(row(s.block).globallyReachable === true, s.block).toBe(s.expect === 'allowed');
    }
  });
});

describe('forbiddenDestination, one address of every block', () => {
  it.each(SAMPLES.filter((s) => s.expect === 'refused'))(
    'refuses $address ($block)',
    ({ address, block }) => {
      expect(forbiddenDestination(address)).toMatchObject({ block });
    },
  );

  it.each(SAMPLES.filter((s) => s.expect === 'allowed'))(
    'allows $address ($block: globally reachable)',
    ({ address }) => {
      expect(forbiddenDestination(address)).toBeUndefined();
    },
  );

  it.each(SAMPLES.flatMap((s) => (s.expect === 'embeds' ? [s] : [])))(
    'judges $block by its embedded IPv4 address',
    ({ address, embeddingTestNet }) => {
      expect(forbiddenDestination(address)).toBeUndefined();
      expect(forbiddenDestination(embeddingTestNet)).toMatchObject({ block: '192.0.2.0/24' });
    },
  );

  it.each([
    '192.0.1.255',
    '192.0.3.0',
    '192.88.98.255',
    '192.88.100.0',
    '198.51.99.255',
    '198.51.101.0',
    '203.0.112.255',
    '203.0.114.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2001:200::1',
    '2001:db9::1',
    '2003::1',
    '3fff:1000::1',
    '5f01::1',
    'fbff::1',
  ])('allows %s, just outside the blocks', (ip) => {
    expect(forbiddenDestination(ip)).toBeUndefined();
  });

  it('fails closed on what is not an IP literal', () => {
    expect(forbiddenDestination('example.com')).toBe('not-an-ip');
    expect(forbiddenDestination('127.1')).toBe('not-an-ip');
  });
});

describe('allowPrivateNetworks (WEBHOOK_ALLOW_PRIVATE_NETWORKS)', () => {
  const open = { allowPrivateNetworks: true };

  it('opens exactly the rows marked privateNetwork', () => {
    for (const s of SAMPLES) {
      if (s.expect !== 'refused') continue;
      const opened = row(s.block).privateNetwork === true;
      expect(isForbiddenDestination(s.address, open), `${s.address} (${s.block})`).toBe(!opened);
    }
  });

  it('opens loopback, private-use, shared, link-local and unique-local, in IPv4-mapped form too', () => {
    const opened = TABLE.filter((r) => r.privateNetwork).map((r) => r.block);
    expect(opened.sort()).toEqual(
      [
        '10.0.0.0/8',
        '100.64.0.0/10',
        '127.0.0.0/8',
        '169.254.0.0/16',
        '172.16.0.0/12',
        '192.168.0.0/16',
        '::1/128',
        'fc00::/7',
        'fe80::/10',
      ].sort(),
    );
    expect(isForbiddenDestination('::ffff:127.0.0.1', open)).toBe(false);
    expect(isForbiddenDestination('::ffff:127.0.0.1')).toBe(true);
  });

  it('keeps documentation, benchmarking, reserved, broadcast and multicast refused', () => {
    for (const ip of ['192.0.2.1', '198.51.100.1', '203.0.113.1', '192.88.99.1', '198.18.0.1', '240.0.0.1'])
      expect(forbiddenDestination(ip, open), ip).toMatchObject({ globallyReachable: expect.anything() });
    expect(isForbiddenDestination('255.255.255.255', open)).toBe(true);
    expect(isForbiddenDestination('224.0.0.1', open)).toBe(true);
    expect(isForbiddenDestination('2001:db8::1', open)).toBe(true);
    expect(isForbiddenDestination('::', open)).toBe(true);
  });
});
