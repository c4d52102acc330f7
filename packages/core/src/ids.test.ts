import { describe, expect, it } from 'vitest';
import { deterministicEmailId, newEmailId, UUID_RE } from './ids.js';

describe('email ids', () => {
  it('are UUIDv7-shaped and sort by time', () => {
    const a = newEmailId(1_700_000_000_000);
    const b = newEmailId(1_700_000_000_001);
    expect(a).toMatch(UUID_RE);
    expect(a[14]).toBe('7');
    expect(a < b).toBe(true);
  });
  it('stay unique across many refills of the random pool', () => {
    const ids = Array.from({ length: 20_000 }, () => newEmailId(1_700_000_000_000));
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => UUID_RE.test(id) && id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
  });
  it('are deterministic for the same idempotency inputs and differ per index/team', () => {
    const x = deterministicEmailId('t1', 'key', 'batch', 0, 1_700_000_000_000);
    expect(deterministicEmailId('t1', 'key', 'batch', 0, 1_700_000_000_000)).toBe(x);
    expect(deterministicEmailId('t1', 'key', 'batch', 1, 1_700_000_000_000)).not.toBe(x);
    expect(deterministicEmailId('t2', 'key', 'batch', 0, 1_700_000_000_000)).not.toBe(x);
    expect(x).toMatch(UUID_RE);
  });
});
