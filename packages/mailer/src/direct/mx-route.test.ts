import { describe, expect, it } from 'vitest';
import { MAX_MX_HOSTS, orderMx, routeFor } from './mx-route.js';

/** A fixed sequence of "random" numbers, repeating. */
const seq = (...values: number[]) => {
  let i = 0;
  return () => values[i++ % values.length]!;
};

describe('routeFor', () => {
  it('orders MX hosts by ascending preference, lower-cased, without the root dot', () => {
    const route = routeFor('example.test', {
      kind: 'records',
      records: [
        { exchange: 'MX2.example.test.', priority: 20 },
        { exchange: 'mx1.example.test', priority: 10 },
        { exchange: 'mx3.example.test', priority: 30 },
      ],
    });
    expect(route).toEqual({
      kind: 'hosts',
      hosts: ['mx1.example.test', 'mx2.example.test', 'mx3.example.test'],
      implicit: false,
    });
  });

  it('shuffles hosts of equal preference and keeps the preference groups in order', () => {
    const records = [
      { exchange: 'a.test', priority: 10 },
      { exchange: 'b.test', priority: 10 },
      { exchange: 'c.test', priority: 10 },
      { exchange: 'backup.test', priority: 50 },
    ];
    // Fisher–Yates from the end: j = floor(r * (i + 1)) — 0.99 keeps, 0 swaps with the first
    expect(orderMx(records, seq(0.99, 0.99))).toEqual(['a.test', 'b.test', 'c.test', 'backup.test']);
    expect(orderMx(records, seq(0, 0))).toEqual(['b.test', 'c.test', 'a.test', 'backup.test']);
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) seen.add(orderMx(records).slice(0, 3).join());
    expect(seen.size).toBeGreaterThan(1);
    for (const order of seen) expect(order.split(',').sort()).toEqual(['a.test', 'b.test', 'c.test']);
  });

  it('lists a host named twice once, at its best preference', () => {
    expect(
      orderMx([
        { exchange: 'mx.test', priority: 20 },
        { exchange: 'mx.test', priority: 10 },
        { exchange: 'other.test', priority: 15 },
      ]),
    ).toEqual(['mx.test', 'other.test']);
  });

  it('tries at most MAX_MX_HOSTS hosts', () => {
    const records = Array.from({ length: 9 }, (_, i) => ({ exchange: `mx${i}.test`, priority: i }));
    const route = routeFor('many.test', { kind: 'records', records });
    expect(route.kind === 'hosts' && route.hosts).toHaveLength(MAX_MX_HOSTS);
  });

  it('falls back to the domain itself when it has no MX (implicit MX, RFC 5321 section 5.1)', () => {
    expect(routeFor('Plain.Test', { kind: 'nodata' })).toEqual({
      kind: 'hosts',
      hosts: ['plain.test'],
      implicit: true,
    });
    expect(routeFor('plain.test', { kind: 'records', records: [] })).toEqual({
      kind: 'hosts',
      hosts: ['plain.test'],
      implicit: true,
    });
  });

  it('bounces a null MX (RFC 7505) with 556 5.1.10', () => {
    for (const exchange of ['', '.']) {
      expect(routeFor('nomail.test', { kind: 'records', records: [{ exchange, priority: 0 }] })).toEqual({
        kind: 'bounce',
        code: 556,
        enhancedCode: '5.1.10',
        detail: 'Domain nomail.test does not accept mail (null MX, RFC 7505)',
      });
    }
  });

  it('ignores a null MX published next to real ones', () => {
    expect(
      routeFor('mixed.test', {
        kind: 'records',
        records: [
          { exchange: '', priority: 0 },
          { exchange: 'mx.mixed.test', priority: 10 },
        ],
      }),
    ).toEqual({ kind: 'hosts', hosts: ['mx.mixed.test'], implicit: false });
  });

  it('bounces a domain that does not exist and defers a failed lookup', () => {
    expect(routeFor('gone.test', { kind: 'nxdomain' })).toMatchObject({
      kind: 'bounce',
      code: 550,
      enhancedCode: '5.1.2',
    });
    expect(routeFor('flaky.test', { kind: 'temporary', detail: 'ESERVFAIL' })).toEqual({
      kind: 'defer',
      detail: 'MX lookup for flaky.test failed: ESERVFAIL',
    });
  });
});
