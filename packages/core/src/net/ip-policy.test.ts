import { describe, expect, it } from 'vitest';
import { isForbiddenDestination, parseIPv4, parseIPv6, parseUrlHost } from './ip-policy.js';

/** Stand-in for DNS: what the names of the corpus resolve to. */
const RESOLVER: Record<string, string[]> = {
  localhost: ['127.0.0.1', '::1'],
  'localhost.': ['127.0.0.1'],
  'metadata.google.internal': ['169.254.169.254'],
  'evil.test': ['127.0.0.1'],
  'mixed.test': ['93.184.216.34', '10.0.0.7'], // one private answer is enough to refuse
  'example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
};

/** Every address the URL's host stands for (the literal itself, or its DNS answers). */
function addressesOf(url: string): string[] {
  const host = parseUrlHost(url);
  if (!host) throw new Error(`not a URL with a host: ${url}`);
  if (host.kind === 'ip') return [host.address];
  const found = RESOLVER[host.name];
  if (!found) throw new Error(`no test DNS entry for ${host.name}`);
  return found;
}
const refused = (url: string) => addressesOf(url).some((ip) => isForbiddenDestination(ip));

/** SSRF corpus: every one of these must be refused. */
const PRIVATE_URLS = [
  'http://127.0.0.1/',
  'http://127.0.0.1:8080/file.pdf',
  'http://127.255.255.254/',
  'http://localhost/',
  'http://LOCALHOST./',
  'http://[::1]/',
  'http://[0:0:0:0:0:0:0:1]/',
  'http://0.0.0.0/',
  'http://0/',
  'http://169.254.169.254/latest/meta-data/',
  'http://metadata.google.internal/computeMetadata/v1/',
  'http://10.0.0.1/',
  'http://10.255.255.255/',
  'http://172.16.0.1/',
  'http://172.31.255.255/',
  'http://192.168.0.1/',
  'http://192.168.255.255/',
  'http://100.64.0.1/',
  'http://100.127.255.255/',
  'http://192.0.0.8/',
  'http://198.18.0.1/',
  'http://198.19.255.255/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://240.0.0.1/',
  'http://255.255.255.255/',
  'http://192.0.2.1/', // TEST-NET-1
  'http://198.51.100.1/', // TEST-NET-2
  'http://203.0.113.1/', // TEST-NET-3
  'http://192.88.99.1/', // deprecated 6to4 relay anycast
  'http://[2001:db8::1]/',
  'http://[64:ff9b:1::8.8.8.8]/',
  'http://[::ffff:192.0.2.1]/',
  'http://[fc00::1]/',
  'http://[fd12:3456:789a::1]/',
  'http://[fe80::1]/',
  'http://[febf::1]/',
  'http://[ff02::1]/',
  'http://[::]/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[::ffff:a00:1]/',
  'http://[::127.0.0.1]/',
  'http://[64:ff9b::127.0.0.1]/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[2002:7f00:1::]/',
  'http://2130706433/',
  'http://0x7f.1/',
  'http://017700000001/',
  'http://0x7f000001/',
  'http://127.1/',
  'http://0177.0.0.1/',
  'http://0x7f.0x0.0x0.0x1/',
  'http://127.0.0.1./',
  'http://%31%32%37.0.0.1/',
  'http://user:pass@127.0.0.1/',
  'http://evil.test/', // a name whose resolver answers 127.0.0.1
  'http://mixed.test/',
];

const PUBLIC_URLS = [
  'http://8.8.8.8/',
  'https://1.1.1.1/file.pdf',
  'http://[2606:4700::1111]/',
  'http://example.com/report.pdf',
  'http://[::ffff:8.8.8.8]/',
  'http://[64:ff9b::8.8.8.8]/',
  'http://172.32.0.1/',
  'http://100.128.0.1/',
  'http://192.169.0.1/',
  'http://11.0.0.1/',
];

describe('SSRF corpus (R17)', () => {
  it('has at least 40 refused URLs', () => {
    expect(PRIVATE_URLS.length).toBeGreaterThanOrEqual(40);
  });
  it.each(PRIVATE_URLS)('refuses %s', (url) => {
    expect(refused(url)).toBe(true);
  });
  it.each(PUBLIC_URLS)('allows %s', (url) => {
    expect(refused(url)).toBe(false);
  });
});

describe('parseUrlHost', () => {
  it.each([
    ['http://2130706433', '127.0.0.1'],
    ['http://0x7f.1', '127.0.0.1'],
    ['http://017700000001', '127.0.0.1'],
    ['http://127.1', '127.0.0.1'],
    ['http://0', '0.0.0.0'],
    ['http://0x7f.0x0.0x0.0x1', '127.0.0.1'],
    ['http://%31%32%37.0.0.1/', '127.0.0.1'],
    ['https://8.8.8.8:8443/x', '8.8.8.8'],
  ])('normalises the numeric host of %s to %s', (url, address) => {
    expect(parseUrlHost(url)).toEqual({ kind: 'ip', family: 4, address });
  });
  it('reads IPv6 literals without brackets, compressed', () => {
    expect(parseUrlHost('http://[::1]:8080/')).toEqual({ kind: 'ip', family: 6, address: '::1' });
    expect(parseUrlHost('http://[::ffff:127.0.0.1]/')).toEqual({
      kind: 'ip',
      family: 6,
      address: '::ffff:7f00:1',
    });
  });
  it('returns names lower-cased for resolution', () => {
    expect(parseUrlHost('https://Files.Example.COM/a.pdf')).toEqual({
      kind: 'name',
      name: 'files.example.com',
    });
  });
  it('returns undefined for text that is not a URL with a host', () => {
    expect(parseUrlHost('not a url')).toBeUndefined();
    expect(parseUrlHost('http://999999999999/')).toBeUndefined();
    expect(parseUrlHost('file:///etc/passwd')).toBeUndefined();
  });
  it('accepts a URL object', () => {
    expect(parseUrlHost(new URL('http://10.1.2.3/'))).toEqual({ kind: 'ip', family: 4, address: '10.1.2.3' });
  });
});

describe('isForbiddenDestination', () => {
  it.each([
    // IPv4 ranges, first and last address of each
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.0',
    '10.255.255.255',
    '100.64.0.0',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.255',
    '169.254.0.0',
    '169.254.169.254',
    '169.254.255.255',
    '172.16.0.0',
    '172.31.255.255',
    '192.0.0.0',
    '192.0.0.255',
    '192.168.0.0',
    '192.168.255.255',
    '198.18.0.0',
    '198.19.255.255',
    '224.0.0.0',
    '239.255.255.255',
    '240.0.0.0',
    '255.255.255.255',
    // IPv6
    '::',
    '::1',
    '[::1]',
    'fc00::1',
    'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    'fe80::1',
    'fe80::1%eth0',
    'febf:ffff::1',
    'ff00::',
    'ff02::1',
    'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    // IPv4 embedded in IPv6
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '0:0:0:0:0:ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:0:127.0.0.1',
    '::127.0.0.1',
    '::7f00:1',
    '::8.8.8.8', // IPv4-compatible addresses are deprecated: refused whatever they embed
    '64:ff9b::127.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::c0a8:101',
    '64:ff9b:1::8.8.8.8',
    '2002:c0a8:101::1',
    '2001:db8::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '100::1',
  ])('%s is private', (ip) => {
    expect(isForbiddenDestination(ip)).toBe(true);
  });

  it.each([
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '169.255.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.0',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '93.184.216.34',
    '2606:4700::1111',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '[2001:4860:4860::8888]',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
    'fbff::1',
    'fe7f::1', // just below fe80::/10
  ])('%s is public', (ip) => {
    expect(isForbiddenDestination(ip)).toBe(false);
  });

  it.each([
    '',
    'localhost',
    'example.com',
    '0x7f.1',
    '2130706433',
    '127.1',
    '127.0.0.01',
    '256.0.0.1',
    '1.2.3',
    ':::',
    '1::2::3',
    '12345::',
    'g::1',
  ])('fails closed on %j (not a well-formed IP literal)', (text) => {
    expect(isForbiddenDestination(text)).toBe(true);
  });
});

describe('parsers', () => {
  it('parseIPv4 is strict dotted-quad', () => {
    expect(parseIPv4('127.0.0.1')).toBe(0x7f000001);
    expect(parseIPv4('255.255.255.255')).toBe(0xffffffff);
    expect(parseIPv4('01.2.3.4')).toBeUndefined();
    expect(parseIPv4('1.2.3.4.')).toBeUndefined();
  });
  it('parseIPv6 expands compression and dotted tails', () => {
    expect(parseIPv6('::')).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304]);
    expect(parseIPv6('1:2:3:4:5:6:7.8.9.10')).toEqual([1, 2, 3, 4, 5, 6, 0x0708, 0x090a]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIPv6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
    expect(parseIPv6('1:2:3:4:5:6:7::8')).toBeUndefined();
    expect(parseIPv6('1.2.3.4')).toBeUndefined();
    expect(parseIPv6('::1.2.3')).toBeUndefined();
  });
});
