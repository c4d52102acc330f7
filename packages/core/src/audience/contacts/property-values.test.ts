import { describe, expect, it } from 'vitest';
import { propertyValueProblem, resolvePropertyValues } from './property-values.js';

const defs = [
  { id: 'p1', key: 'plan', type: 'string' as const },
  { id: 'p2', key: 'seats', type: 'number' as const },
];

describe('resolvePropertyValues', () => {
  it('keys values by property id; null (remove) is kept', () => {
    expect(resolvePropertyValues({ plan: 'pro', seats: null }, defs)).toEqual({ p1: 'pro', p2: null });
  });

  it.each([
    [{ Plan: 'pro' }, /^properties\.Plan: no such contact property/],
    [{ plan: 3 }, /^properties\.plan: must be a string, the property's type$/],
    [{ seats: '3' }, /^properties\.seats: must be a number/],
    [{ seats: true }, /^properties\.seats: must be a number/],
    [{ plan: 'x'.repeat(2_001) }, /^properties\.plan: a string value has at most 2000 characters$/],
    [{ seats: 2 ** 53 }, /^properties\.seats: a number value lies between/],
    [{ 'odd key': 1 }, /^properties\["odd key"\]: no such contact property/],
  ])('refuses %j with a 422 naming the key', (input, message) => {
    expect(() => resolvePropertyValues(input, defs)).toThrow(
      expect.objectContaining({
        errorName: 'validation_error',
        statusCode: 422,
        message: expect.stringMatching(message),
      }),
    );
  });

  it('counts characters, not UTF-16 units', () => {
    expect(propertyValueProblem('string', '😀'.repeat(2_000))).toBeUndefined();
    expect(propertyValueProblem('number', Number.NaN)).toMatch(/lies between/);
  });
});
