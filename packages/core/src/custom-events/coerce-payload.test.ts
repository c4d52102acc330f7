import { describe, expect, it } from 'vitest';
import type { EventSchemaType } from '@petrel/contracts';
import { coercePayload, coerceValue, isoInstant } from './coerce-payload.js';

describe('coerceValue', () => {
  const accepted: [EventSchemaType, unknown, unknown][] = [
    ['string', 'pro', 'pro'],
    ['string', '', ''],
    ['string', 42, '42'],
    ['string', true, 'true'],
    ['number', 42, 42],
    ['number', -1.5, -1.5],
    ['number', '42', 42],
    ['number', ' -1.5e3 ', -1500],
    ['number', '.5', 0.5],
    ['number', '+7', 7],
    ['boolean', true, true],
    ['boolean', false, false],
    ['boolean', 'true', true],
    ['boolean', ' FALSE ', false],
    ['date', '2026-11-23', '2026-11-23T00:00:00.000Z'],
    ['date', '2026-11-23T10:20:30Z', '2026-11-23T10:20:30.000Z'],
    ['date', '2026-11-23T10:20:30.123456+02:00', '2026-11-23T08:20:30.123Z'],
    ['date', '2023-10-06 23:47:56.678+00', '2023-10-06T23:47:56.678Z'],
    ['date', '2026-11-23T10:20', '2026-11-23T10:20:00.000Z'],
    ['date', '2026-11-23T00:30:00-0130', '2026-11-23T02:00:00.000Z'],
    ['date', '2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['date', '0050-01-01', '0050-01-01T00:00:00.000Z'],
  ];
  it.each(accepted)('%s accepts %j as %j', (type, value, expected) => {
    expect(coerceValue(type, value)).toEqual({ ok: true, value: expected });
  });

  const refused: [EventSchemaType, unknown, string][] = [
    ['string', { a: 1 }, 'must be a string (got an object)'],
    ['string', ['a'], 'must be a string (got an array)'],
    ['number', 'abc', 'must be a number or a decimal string (got a string)'],
    ['number', '', 'must be a number or a decimal string (got a string)'],
    ['number', '0x10', 'must be a number or a decimal string (got a string)'],
    ['number', 'Infinity', 'must be a number or a decimal string (got a string)'],
    ['number', '1e999', 'must be a number or a decimal string (got a string)'],
    ['number', true, 'must be a number or a decimal string (got a boolean)'],
    ['boolean', 'yes', 'must be a boolean, "true" or "false" (got a string)'],
    ['boolean', 1, 'must be a boolean, "true" or "false" (got a number)'],
    ['date', 1_700_000_000, 'must be an ISO 8601 date or date-time string (got a number)'],
    ['date', 'yesterday', 'must be an ISO 8601 date or date-time string (got a string)'],
    ['date', '2023-02-29', 'must be an ISO 8601 date or date-time string (got a string)'],
    ['date', '2026-13-01', 'must be an ISO 8601 date or date-time string (got a string)'],
    ['date', '2026-11-23T24:00:00Z', 'must be an ISO 8601 date or date-time string (got a string)'],
    ['date', 'Mon, 23 Nov 2026 10:00:00 GMT', 'must be an ISO 8601 date or date-time string (got a string)'],
  ];
  it.each(refused)('%s refuses %j', (type, value, rule) => {
    expect(coerceValue(type, value)).toEqual({ ok: false, rule });
  });
});

describe('coercePayload', () => {
  const schema = { plan: 'string', seats: 'number', trial: 'boolean', renews: 'date' } as const;

  it('coerces declared fields, keeps undeclared ones, lets absent and null fields pass', () => {
    expect(
      coercePayload(schema, { plan: 'pro', seats: '3', trial: 'false', extra: { a: [1] }, renews: null }),
    ).toEqual({
      ok: true,
      payload: { plan: 'pro', seats: 3, trial: false, extra: { a: [1] }, renews: null },
    });
  });

  it('names the first field that cannot be coerced', () => {
    expect(coercePayload(schema, { plan: 'pro', seats: 'many', trial: 'maybe' })).toEqual({
      ok: false,
      field: 'seats',
      rule: 'must be a number or a decimal string (got a string)',
    });
  });

  it('does not modify its input', () => {
    const input = { seats: '3' };
    coercePayload(schema, input);
    expect(input).toEqual({ seats: '3' });
  });
});

describe('isoInstant', () => {
  it('refuses out-of-range offsets and partial times', () => {
    expect(isoInstant('2026-11-23T10:00+24:00')).toBeUndefined();
    expect(isoInstant('2026-11-23T10')).toBeUndefined();
    expect(isoInstant('2026-11-23T10:00:00.5z')).toBe('2026-11-23T10:00:00.500Z');
  });
});
