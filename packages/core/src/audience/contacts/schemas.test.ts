import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { formatIssues } from '@petrel/contracts';
import {
  createContactPropertySchema,
  createContactSchema,
  segmentSchema,
  updateContactTopicsSchema,
} from './schemas.js';

const message = (schema: z.ZodType, v: unknown): string | undefined => {
  const res = schema.safeParse(v);
  return res.success ? undefined : formatIssues(res.error.issues, { input: v });
};

describe('contact schemas', () => {
  it('reads segments as [{ id }] (SDK) or ["id"] (OpenAPI), without repeats', () => {
    const parsed = createContactSchema.parse({ email: 'a@x.test', segments: [{ id: 's1' }, 's2', 's1'] });
    expect(parsed.segments).toEqual(['s1', 's2']);
  });

  it('names the field of each broken rule', () => {
    expect(message(createContactSchema, {})).toBe('email: is required');
    expect(
      message(createContactSchema, { email: 'a@x.test', topics: [{ id: 't', subscription: 'yes' }] }),
    ).toBe("topics[0].subscription: must be 'opt_in' or 'opt_out'");
    expect(
      message(createContactSchema, {
        email: 'a@x.test',
        topics: [
          { id: 't', subscription: 'opt_in' },
          { id: 't', subscription: 'opt_out' },
        ],
      }),
    ).toBe('topics[1].id: duplicate topic (also topics[0].id)');
    expect(message(createContactSchema, { email: 'a@x.test', first_name: 'A\r\nBcc: x' })).toBe(
      'first_name: must not contain line breaks or control characters',
    );
    expect(message(createContactSchema, { email: 'a@x.test', properties: { a: [1] } })).toBe(
      'properties.a: must be a string, a number or null',
    );
  });

  it('takes topic choices as a bare array or as { topics }', () => {
    const choice = { id: 't', subscription: 'opt_in' };
    expect(updateContactTopicsSchema.parse([choice])).toEqual({ topics: [choice] });
    expect(updateContactTopicsSchema.parse({ topics: [choice] })).toEqual({ topics: [choice] });
    expect(message(updateContactTopicsSchema, [{ id: 't' }])).toBe('topics[0].subscription: is required');
  });

  it('checks property keys and segment names', () => {
    expect(message(createContactPropertySchema, { key: 'has-dash', type: 'string' })).toBe(
      'key: may contain only ASCII letters, digits and underscore',
    );
    expect(message(createContactPropertySchema, { key: 'k'.repeat(51), type: 'number' })).toBe(
      'key: has at most 50 characters',
    );
    expect(message(createContactPropertySchema, { key: 'k', type: 'boolean' })).toBe(
      "type: must be 'string' or 'number'",
    );
    expect(message(segmentSchema, { name: '  ' })).toBe('name: must not be empty');
  });
});
