import { describe, expect, it } from 'vitest';
import { buildQuery, href, parseRoute } from './url.js';

describe('buildQuery', () => {
  it('keeps set values only, encoded', () => {
    expect(buildQuery({ to: 'a+b@x.test', subject: '', status: undefined, limit: 20, tag: null })).toBe(
      '?to=a%2Bb%40x.test&limit=20',
    );
    expect(buildQuery({})).toBe('');
  });
});

describe('routes', () => {
  it('parses segments and query from the hash', () => {
    expect(parseRoute('#/emails/abc%2Fd?to=x%40y&status=sent')).toEqual({
      segments: ['emails', 'abc/d'],
      query: { to: 'x@y', status: 'sent' },
    });
    expect(parseRoute('')).toEqual({ segments: [], query: {} });
    expect(parseRoute('#/%E0%A4%A')).toEqual({ segments: ['%E0%A4%A'], query: {} });
  });
  it('builds hashes that parse back', () => {
    const h = href('emails', 'a/b?c');
    expect(parseRoute(h).segments).toEqual(['emails', 'a/b?c']);
  });
});
