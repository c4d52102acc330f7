import { describe, expect, it } from 'vitest';
import { deterministicEmailId, newEmailId, newId, UUID_RE } from './ids.js';

describe('ids', () => {
  it('are UUIDv7 (version 7, RFC 9562 variant) and sort by time', () => {
    const a = newId(1_700_000_000_000);
    const b = newId(1_700_000_000_001);
    expect(a).toMatch(UUID_RE);
    expect(a[14]).toBe('7');
    expect('89ab').toContain(a[19]);
    expect(a < b).toBe(true);
    expect(a.slice(0, 13)).toBe('018bcfe5-6800');
  });

  it('stay unique across many refills of the random pool', () => {
    const ids = Array.from({ length: 20_000 }, () => newId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => UUID_RE.test(id) && id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
  });

  it('an email id is such an id', () => {
    expect(newEmailId(1_700_000_000_000).slice(0, 15)).toBe('018bcfe5-6800-7');
  });

  it('are deterministic for the same idempotency inputs and differ per index/team', () => {
    const x = deterministicEmailId('t1', 'key', 'batch', 0, 1_700_000_000_000);
    expect(deterministicEmailId('t1', 'key', 'batch', 0, 1_700_000_000_000)).toBe(x);
    expect(deterministicEmailId('t1', 'key', 'batch', 1, 1_700_000_000_000)).not.toBe(x);
    expect(deterministicEmailId('t2', 'key', 'batch', 0, 1_700_000_000_000)).not.toBe(x);
    expect(x).toMatch(UUID_RE);
  });

  it('derive idempotent email ids exactly as before (a retry across an upgrade keeps its ids)', () => {
    expect(deterministicEmailId('t1', 'key', 'batch', 0, 1_700_000_000_000)).toBe(
      '018bcfe5-6800-79c9-8486-a3421936f389',
    );
  });
});
