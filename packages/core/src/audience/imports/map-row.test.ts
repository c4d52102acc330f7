import { describe, expect, it } from 'vitest';
import { compileColumnMap, mapRow, parseBoolean, parseNumber, resolveColumnMap } from './map-row.js';
import type { ImportColumnMap } from './ports.js';

const header = ['Email', 'First Name', 'last_name', 'Unsubscribed', 'Plan', 'Seats', 'Beta'];
const map: ImportColumnMap = {
  email: 'Email',
  first_name: 'First Name',
  unsubscribed: 'Unsubscribed',
  properties: {
    plan: { column: 'Plan' },
    seats: { column: 'Seats', type: 'number' },
    beta: { column: 'Beta', type: 'boolean' },
  },
};
const types = { plan: 'string', seats: 'number', beta: 'string' } as const;

function compiled() {
  const resolved = resolveColumnMap(header, map, types);
  if (!resolved.ok) throw new Error(JSON.stringify(resolved.issues));
  return compileColumnMap(header, resolved.map);
}

describe('coercion', () => {
  it('reads booleans as true/false, 1/0, yes/no in any case', () => {
    for (const v of ['true', 'TRUE', '1', 'yes', 'Yes']) expect(parseBoolean(v)).toBe(true);
    for (const v of ['false', 'False', '0', 'no', 'NO']) expect(parseBoolean(v)).toBe(false);
    for (const v of ['', 'y', 'on', '2', 'truthy']) expect(parseBoolean(v)).toBeUndefined();
  });
  it('reads decimal numbers only', () => {
    expect(parseNumber('42')).toBe(42);
    expect(parseNumber('-1.5')).toBe(-1.5);
    expect(parseNumber('2e3')).toBe(2000);
    expect(parseNumber('.5')).toBe(0.5);
    for (const v of ['', '0x10', '1,5', 'Infinity', 'NaN', '1e999', '12abc'])
      expect(parseNumber(v)).toBeUndefined();
  });
});

describe('resolveColumnMap', () => {
  it('finds the default columns loosely when there is no map; only email is required', () => {
    const r = resolveColumnMap(['E-mail', 'FirstName', 'city'], null, {});
    expect(r).toEqual({ ok: true, map: { email: 'E-mail', first_name: 'FirstName', properties: {} } });
    const none = resolveColumnMap(['address', 'name'], null, {});
    expect(none.ok).toBe(false);
    if (!none.ok) expect(none.issues[0]!.message).toMatch(/no "email" column.*"address", "name"/);
  });

  it('names every mapped column missing from the header and every unknown or mistyped property', () => {
    const r = resolveColumnMap(
      ['Email', 'Plan'],
      {
        email: 'Email',
        first_name: 'First',
        properties: { plan: { column: 'Plan', type: 'string' }, nope: { column: 'Nope' } },
      },
      { plan: 'number', nope: null },
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues.map((i) => i.path.join('.'))).toEqual([
      'column_map.first_name',
      'column_map.properties.plan.type',
      'column_map.properties.nope.column',
      'column_map.properties.nope',
    ]);
  });

  it("types a property by its mapping, else by the contact property's declared type", () => {
    const r = resolveColumnMap(header, map, types);
    expect(r.ok && r.map.properties).toEqual({
      plan: { column: 'Plan', type: 'string', property: 'string' },
      seats: { column: 'Seats', type: 'number', property: 'number' },
      beta: { column: 'Beta', type: 'boolean', property: 'string' },
    });
  });
});

describe('mapRow', () => {
  it('maps a row: trimmed cells, typed values, empty cells left out', () => {
    const row = [' ada@example.com ', 'Ada', 'Lovelace', 'yes', 'pro', ' 12 ', 'TRUE'];
    expect(mapRow(row, compiled())).toEqual({
      ok: true,
      contact: {
        email: 'ada@example.com',
        first_name: 'Ada',
        unsubscribed: true,
        properties: { plan: 'pro', seats: 12, beta: 'true' },
      },
    });
    expect(mapRow(['bob@example.com', '', '', '', '', '', ''], compiled())).toEqual({
      ok: true,
      contact: { email: 'bob@example.com' },
    });
  });

  it('treats missing trailing cells as empty and ignores extra ones', () => {
    expect(mapRow(['c@example.com'], compiled())).toEqual({ ok: true, contact: { email: 'c@example.com' } });
    expect(mapRow(['d@example.com', 'D', '', '', '', '', '', 'extra', 'more'], compiled())).toEqual({
      ok: true,
      contact: { email: 'd@example.com', first_name: 'D' },
    });
  });

  it('accepts internationalised addresses', () => {
    const r = mapRow(['josé@bücher.example'], compiled());
    expect(r).toEqual({ ok: true, contact: { email: 'josé@bücher.example' } });
  });

  it('fails a row naming the field and the value', () => {
    const c = compiled();
    const cases: [string[], RegExp][] = [
      [['', 'x'], /^email: is empty$/],
      [['not-an-email'], /^email: "not-an-email" is not a valid email address$/],
      [['Ada <ada@example.com>'], /^email: .* is not a valid email address$/],
      [['a@example.com', '', '', 'maybe'], /^unsubscribed: "maybe" is not a boolean/],
      [['a@example.com', '', '', '', '', 'ten'], /^properties\.seats: "ten" is not a number$/],
      [['a@example.com', '', '', '', '', '', 'sure'], /^properties\.beta: "sure" is not a boolean/],
      [['a@example.com', 'x'.repeat(300)], /^first_name: must be at most 256 characters$/],
      [
        ['a@example.com', '', '', '', 'p'.repeat(2001)],
        /^properties\.plan: must be at most 2000 characters$/,
      ],
    ];
    for (const [row, message] of cases) {
      const r = mapRow(row, c);
      expect(r.ok, row.join(',')).toBe(false);
      if (!r.ok) expect(r.message).toMatch(message);
    }
  });

  it('stores a boolean as 1/0 in a number property', () => {
    const h = ['email', 'vip'];
    const r = resolveColumnMap(
      h,
      { email: 'email', properties: { vip: { column: 'vip', type: 'boolean' } } },
      { vip: 'number' },
    );
    if (!r.ok) throw new Error('unexpected');
    expect(mapRow(['a@example.com', 'no'], compileColumnMap(h, r.map))).toEqual({
      ok: true,
      contact: { email: 'a@example.com', properties: { vip: 0 } },
    });
  });
});
