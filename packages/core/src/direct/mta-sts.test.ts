import { describe, expect, it } from 'vitest';
import { mxPatternMatches, policyAction, policyFresh, stsCandidates, type StsPolicy } from './mta-sts.js';

const policy = (over: Partial<StsPolicy> = {}): StsPolicy => ({
  id: 'v1',
  mode: 'enforce',
  mx: ['mx1.example.com', '*.mail.example.com'],
  maxAgeS: 600,
  lines: [],
  fetchedAtMs: 1_000_000,
  ...over,
});

describe('mxPatternMatches (RFC 8461 section 4.1)', () => {
  it('matches a host name exactly, case-insensitively, a trailing dot ignored', () => {
    expect(mxPatternMatches('mx1.example.com', 'MX1.Example.com.')).toBe(true);
    expect(mxPatternMatches('mx1.example.com', 'mx2.example.com')).toBe(false);
    expect(mxPatternMatches('mx1.example.com', 'mx1.example.com.evil.test')).toBe(false);
  });

  it('lets a wildcard stand for exactly one leftmost label', () => {
    expect(mxPatternMatches('*.mail.example.com', 'a.mail.example.com')).toBe(true);
    expect(mxPatternMatches('*.mail.example.com', 'mail.example.com')).toBe(false);
    expect(mxPatternMatches('*.mail.example.com', 'a.b.mail.example.com')).toBe(false);
    expect(mxPatternMatches('*.mail.example.com', 'amail.example.com')).toBe(false);
  });

  it('matches nothing with an empty pattern or host', () => {
    expect(mxPatternMatches('', 'mx.example.com')).toBe(false);
    expect(mxPatternMatches('*.example.com', '')).toBe(false);
  });
});

describe('stsCandidates', () => {
  const hosts = ['rogue.example.net', 'mx1.example.com', 'x.mail.example.com'];

  it('enforce: only the listed hosts, in the route order; the others named', () => {
    expect(stsCandidates(policy(), hosts)).toEqual({
      hosts: ['mx1.example.com', 'x.mail.example.com'],
      unlisted: ['rogue.example.net'],
    });
  });

  it('testing: every host, the unlisted ones named for the report', () => {
    expect(stsCandidates(policy({ mode: 'testing' }), hosts)).toEqual({
      hosts,
      unlisted: ['rogue.example.net'],
    });
  });

  it('no policy or mode none: every host, nothing to report', () => {
    expect(stsCandidates(undefined, hosts)).toEqual({ hosts, unlisted: [] });
    expect(stsCandidates(policy({ mode: 'none' }), hosts)).toEqual({ hosts, unlisted: [] });
  });
});

describe('the policy cache (max_age, RFC 8461 sections 3.3 and 5.1)', () => {
  const cached = policy();
  const fresh = cached.fetchedAtMs + 599_999;
  const expired = cached.fetchedAtMs + 600_000;

  it('a policy is fresh for max_age seconds after its fetch', () => {
    expect(policyFresh(cached, fresh)).toBe(true);
    expect(policyFresh(cached, expired)).toBe(false);
  });

  it('uses a fresh policy under the same id without a fetch', () => {
    expect(policyAction(cached, { kind: 'id', id: 'v1' }, fresh)).toBe('use-cached');
  });

  it('fetches when the TXT id changed, the policy expired, or nothing is cached', () => {
    expect(policyAction(cached, { kind: 'id', id: 'v2' }, fresh)).toBe('fetch');
    expect(policyAction(cached, { kind: 'id', id: 'v1' }, expired)).toBe('fetch');
    expect(policyAction(undefined, { kind: 'id', id: 'v1' }, fresh)).toBe('fetch');
  });

  it('keeps a fresh policy when the TXT record is gone or its lookup failed', () => {
    expect(policyAction(cached, { kind: 'none' }, fresh)).toBe('use-cached');
    expect(policyAction(cached, { kind: 'error', detail: 'ESERVFAIL' }, fresh)).toBe('use-cached');
  });

  it('has no policy without a record once the cached one expired', () => {
    expect(policyAction(cached, { kind: 'none' }, expired)).toBe('no-policy');
    expect(policyAction(undefined, { kind: 'error', detail: 'ETIMEOUT' }, fresh)).toBe('no-policy');
  });
});
