import { describe, expect, it } from 'vitest';
import type { DomainRecordSet } from '@petrel/contracts';
import { domainRecords, type DomainDnsTargets } from './domain-records.js';
import { checkRecords, type DnsAnswer, type DnsPort } from './verify-domain.js';

const targets: DomainDnsTargets = { mxHost: 'mx.petrel.test', spf: 'v=spf1 a:mx.petrel.test ~all' };
const domain: DomainRecordSet = {
  id: 'd',
  name: 'example.com',
  region: 'us-east-1',
  custom_return_path: 'send',
  capabilities: { sending: 'enabled', receiving: 'enabled' },
  open_tracking: false,
  click_tracking: false,
  tls: 'opportunistic',
  tracking_subdomain: null,
  dkim: [
    {
      selector: 'petrel',
      algorithm: 'rsa-sha256',
      publicKey: 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA',
    },
  ],
  checks: {},
  status: 'not_started',
  created_at: '',
  updated_at: '',
  checked_at: null,
};

function dns(
  txt: Record<string, DnsAnswer<string>>,
  mx: Record<string, DnsAnswer<{ exchange: string; priority: number }>>,
): DnsPort {
  return {
    txt: async (name) => txt[name] ?? { kind: 'none' },
    mx: async (name) => mx[name] ?? { kind: 'none' },
  };
}

describe('domainRecords', () => {
  it("lists DKIM, the return path's SPF MX and TXT, and the receiving MX", () => {
    expect(
      domainRecords(domain, targets).map(({ key, record, name, type, value, priority, status }) => [
        key,
        record,
        name,
        type,
        value,
        priority,
        status,
      ]),
    ).toEqual([
      [
        'dkim:petrel',
        'DKIM',
        'petrel._domainkey.example.com',
        'TXT',
        'v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA',
        undefined,
        'not_started',
      ],
      ['spf:mx', 'SPF', 'send.example.com', 'MX', 'mx.petrel.test', 10, 'not_started'],
      ['spf:txt', 'SPF', 'send.example.com', 'TXT', 'v=spf1 a:mx.petrel.test ~all', undefined, 'not_started'],
      ['receiving:mx', 'Receiving', 'example.com', 'MX', 'mx.petrel.test', 10, 'not_started'],
    ]);
  });
});

describe('checkRecords', () => {
  it('matches DKIM by p= (any spacing), SPF by value, MX by exchange; sorts failures', async () => {
    const statuses = await checkRecords(
      domain,
      domainRecords(domain, targets),
      dns(
        {
          'petrel._domainkey.example.com': {
            kind: 'found',
            values: ['k=rsa;  v=DKIM1; p=MIIBIjANBgkqhkiG9w0BAQEF AAOCAQ8AMIIBCgKCAQEA'],
          },
          'send.example.com': { kind: 'found', values: ['v=spf1 include:other ~all'] },
        },
        {
          'send.example.com': { kind: 'found', values: [{ exchange: 'MX.petrel.test.', priority: 5 }] },
          'example.com': { kind: 'error', detail: 'ESERVFAIL' },
        },
      ),
    );
    expect(statuses).toEqual({
      'dkim:petrel': 'verified',
      'spf:mx': 'verified',
      'spf:txt': 'failed',
      'receiving:mx': 'temporary_failure',
    });
  });

  it('keeps a verified record verified through a temporary failure, not through a failure', async () => {
    const before = { ...domain, checks: { 'dkim:petrel': 'verified', 'spf:mx': 'verified' } as const };
    const statuses = await checkRecords(
      before,
      domainRecords(before, targets),
      dns({ 'petrel._domainkey.example.com': { kind: 'error', detail: 'ETIMEOUT' } }, {}),
    );
    expect(statuses['dkim:petrel']).toBe('verified');
    expect(statuses['spf:mx']).toBe('failed');
  });
});
