import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('evicts the least recently used entry beyond maxEntries', () => {
    const c = new BoundedCache<string>(2, 1000);
    c.set('a', '1');
    c.set('b', '2');
    expect(c.get('a')).toBe('1'); // a is now the most recent
    c.set('c', '3');
    expect(c.get('b')).toBeUndefined();
    expect(c.get('a')).toBe('1');
    expect(c.get('c')).toBe('3');
  });

  it('evicts by total characters of keys and values', () => {
    const c = new BoundedCache<{ body: string }>(100, 160);
    c.set('k1', { body: 'x'.repeat(60) });
    c.set('k2', { body: 'y'.repeat(60) });
    c.set('k3', { body: 'z'.repeat(60) });
    expect(c.get('k1')).toBeUndefined();
    expect(c.get('k3')?.body).toHaveLength(60);
  });

  it('never caches a key longer than a sixteenth of the budget', () => {
    const c = new BoundedCache<string>(10, 1600);
    c.set('k'.repeat(101), 'v');
    expect(c.get('k'.repeat(101))).toBeUndefined();
  });
});
