import { describe, expect, it } from 'vitest';
import {
  DEFAULT_WARMUP_SCHEDULE,
  poolFor,
  providerOf,
  warmupCap,
  type SendingPool,
} from './sending-pools.js';

const pools: SendingPool[] = [
  { name: 'bulk', addresses: ['192.0.2.10'], teams: ['team_b'], domains: [] },
  { name: 'acme', addresses: ['192.0.2.20'], teams: [], domains: ['acme.com'] },
  { name: 'default', addresses: ['192.0.2.1'], teams: [], domains: [] },
];

describe('poolFor', () => {
  it('takes the from-domain pool first (a subdomain too), then the team pool, then default', () => {
    expect(poolFor(pools, { teamId: 'team_b', domain: 'acme.com' })?.name).toBe('acme');
    expect(poolFor(pools, { teamId: 'team_b', domain: 'news.ACME.com' })?.name).toBe('acme');
    expect(poolFor(pools, { teamId: 'team_b', domain: 'notacme.com' })?.name).toBe('bulk');
    expect(poolFor(pools, { teamId: 'team_c', domain: 'other.com' })?.name).toBe('default');
  });

  it('has no pool without a matching one nor a default', () => {
    expect(poolFor(pools.slice(0, 2), { teamId: 'team_c' })).toBeUndefined();
  });
});

describe('warmupCap', () => {
  it('follows the schedule by day, then has no cap', () => {
    expect(warmupCap([5, 10], 0)).toBe(5);
    expect(warmupCap([5, 10], 1)).toBe(10);
    expect(warmupCap([5, 10], 2)).toBeNull();
  });

  it('grows on every day of the default schedule', () => {
    for (let day = 1; day < DEFAULT_WARMUP_SCHEDULE.length; day++)
      expect(warmupCap(DEFAULT_WARMUP_SCHEDULE, day)!).toBeGreaterThan(
        warmupCap(DEFAULT_WARMUP_SCHEDULE, day - 1)!,
      );
  });
});

describe('providerOf', () => {
  it('names the large providers by their MX suffix, others by the last two labels', () => {
    expect(providerOf('gmail-smtp-in.l.google.com.')).toBe('google');
    expect(providerOf('acme-com.mail.protection.outlook.com')).toBe('microsoft');
    expect(providerOf('mta5.am0.yahoodns.net')).toBe('yahoo');
    expect(providerOf('mx1.mail.example.org')).toBe('example.org');
    expect(providerOf('notgoogle.com')).toBe('notgoogle.com');
  });
});
