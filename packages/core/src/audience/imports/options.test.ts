import { describe, expect, it } from 'vitest';
import { validationRefusal } from '@petrel/testing';
import { DEFAULT_ON_CONFLICT, parseImportOptions } from './options.js';

const refusal = (fields: Record<string, string>): string =>
  validationRefusal(() => parseImportOptions(fields));

describe('parseImportOptions', () => {
  it('defaults: no column map (header names), on_conflict skip as Resend documents, no segments or topics', () => {
    expect(parseImportOptions({})).toEqual({ columnMap: null, onConflict: 'skip', segments: [], topics: [] });
    expect(DEFAULT_ON_CONFLICT).toBe('skip');
  });

  it('parses the JSON fields as the SDK sends them', () => {
    const o = parseImportOptions({
      column_map: JSON.stringify({
        email: 'E',
        first_name: 'F',
        properties: { plan: { column: 'P', type: 'string' } },
      }),
      on_conflict: 'upsert',
      segments: JSON.stringify([{ id: 's1' }]),
      topics: JSON.stringify([{ id: 't1', subscription: 'opt_out' }]),
    });
    expect(o).toEqual({
      columnMap: { email: 'E', first_name: 'F', properties: { plan: { column: 'P', type: 'string' } } },
      onConflict: 'upsert',
      segments: ['s1'],
      topics: [{ id: 't1', subscription: 'opt_out' }],
    });
  });

  it('a column map without email reads the "email" column', () => {
    expect(parseImportOptions({ column_map: '{"first_name":"F"}' }).columnMap).toEqual({
      email: 'email',
      first_name: 'F',
      properties: {},
    });
  });

  it('refuses with a 422 naming each broken field', () => {
    expect(refusal({ column_map: '{nope' })).toBe('column_map: must be a JSON-encoded value');
    expect(refusal({ column_map: '[]' })).toMatch(/^column_map: must be a JSON object/);
    expect(refusal({ column_map: '{"email":""}' })).toMatch(/^column_map\.email: must not be empty/);
    expect(refusal({ column_map: '{"mail":"x"}' })).toMatch(/^column_map: unknown field/);
    expect(refusal({ column_map: '{"properties":{"plan":{"column":"P","type":"date"}}}' })).toMatch(
      /^column_map\.properties\.plan\.type: must be one of string, number, boolean/,
    );
    expect(refusal({ column_map: '{"properties":{"bad key":{"column":"P"}}}' })).toMatch(
      /^column_map\.properties/,
    );
    expect(refusal({ on_conflict: 'replace' })).toBe('on_conflict: must be one of upsert, skip');
    expect(refusal({ segments: '{"id":"x"}' })).toMatch(/^segments: must be a JSON array/);
    expect(refusal({ segments: '[{"id":"a"},{"id":"a"}]' })).toBe('segments[1].id: is given twice');
    expect(refusal({ topics: '[{"id":"t","subscription":"maybe"}]' })).toMatch(
      /^topics\[0\]\.subscription: must be one of opt_in, opt_out/,
    );
    expect(refusal({ columnMap: '{}' })).toMatch(/unknown field `columnMap`/);
  });
});
