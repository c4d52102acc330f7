import { describe, expect, it } from 'vitest';
import { formatIssue, type ValidationIssue } from './errors.js';
import { LIMITS } from './limits.js';
import { createTemplateSchema, updateTemplateSchema, validateTemplateVariables } from './template.js';

const messages = (r: { success: boolean; error?: { issues: ValidationIssue[] } }) =>
  r.error?.issues.map((i) => formatIssue(i)) ?? [];

describe('validateTemplateVariables', () => {
  it('accepts valid declarations', () => {
    expect(
      validateTemplateVariables([
        { key: 'PRODUCT', type: 'string', fallback_value: 'item' },
        { key: 'price_2', type: 'number', fallback_value: 9.99 },
        { key: 'X', type: 'number', fallback_value: null },
        { key: 'Y', type: 'string' },
        {
          key: 'K'.repeat(LIMITS.variableKeyLength),
          type: 'number',
          fallback_value: LIMITS.variableNumberMax,
        },
        { key: 'S', type: 'string', fallback_value: 's'.repeat(LIMITS.variableStringLength) },
        { key: 'E', type: 'string', fallback_value: '👋'.repeat(LIMITS.variableStringLength) },
        { key: 'N', type: 'number', fallback_value: -LIMITS.variableNumberMax },
      ]),
    ).toEqual([]);
    expect(validateTemplateVariables([])).toEqual([]);
  });

  it.each([
    [[{ key: 'EMAIL', type: 'string' }], "variables[0].key: key 'EMAIL' is reserved"],
    [[{ key: 'contact', type: 'string' }], "variables[0].key: key 'contact' is reserved"],
    [
      [{ key: 'RESEND_UNSUBSCRIBE_URL', type: 'string' }],
      "variables[0].key: key 'RESEND_UNSUBSCRIBE_URL' is reserved",
    ],
    [
      [{ key: 'a-b', type: 'string' }],
      'variables[0].key: key may contain only ASCII letters, digits and underscore',
    ],
    [
      [{ key: 'é', type: 'string' }],
      'variables[0].key: key may contain only ASCII letters, digits and underscore',
    ],
    [[{ key: '', type: 'string' }], 'variables[0].key: key must not be empty'],
    [[{ key: 'K'.repeat(51), type: 'string' }], 'variables[0].key: key has at most 50 characters'],
    [[{ key: 'A', type: 'date' }], "variables[0].type: type must be 'string' or 'number'"],
    [
      [{ key: 'A', type: 'string', fallback_value: 3 }],
      'variables[0].fallback_value: fallback_value must be a string, as the declared type',
    ],
    [
      [{ key: 'A', type: 'number', fallback_value: '3' }],
      'variables[0].fallback_value: fallback_value must be a number, as the declared type',
    ],
    [
      [{ key: 'A', type: 'string', fallback_value: 'x'.repeat(2001) }],
      'variables[0].fallback_value: a string fallback_value has at most 2000 characters',
    ],
    [
      [{ key: 'A', type: 'number', fallback_value: 2 ** 53 }],
      'variables[0].fallback_value: a number fallback_value lies between -(2^53 - 1) and 2^53 - 1',
    ],
    [
      [{ key: 'A', type: 'number', fallback_value: true }],
      'variables[0].fallback_value: fallback_value must be a string, a number or null',
    ],
    [
      [
        { key: 'A', type: 'string' },
        { key: 'B', type: 'string' },
        { key: 'A', type: 'number' },
      ],
      "variables[2].key: duplicate key 'A' (also variables[0].key)",
    ],
  ])('refuses %j', (vars, message) => {
    expect(validateTemplateVariables(vars)).toEqual([message]);
  });

  it('refuses a number fallback below -(2^53 - 1)', () => {
    expect(
      validateTemplateVariables([{ key: 'A', type: 'number', fallback_value: -(2 ** 53) }]),
    ).toHaveLength(1);
  });

  it('refuses more than 50 declarations and non-arrays', () => {
    const many = Array.from({ length: 51 }, (_, i) => ({ key: `V${i}`, type: 'string' }));
    expect(validateTemplateVariables(many)).toEqual(['variables: a template declares at most 50 variables']);
    expect(validateTemplateVariables('x')).toHaveLength(1);
  });
});

describe('createTemplateSchema', () => {
  it('accepts the SDK payload and normalises reply_to', () => {
    const r = createTemplateSchema.parse({
      name: 'order-confirmation',
      html: '<p>{{{PRODUCT}}}</p>',
      subject: 'Your order',
      alias: 'order.confirmation_v2',
      from: 'Acme <shop@acme.test>',
      reply_to: 'help@acme.test',
      variables: [{ key: 'PRODUCT', type: 'string', fallback_value: 'item' }],
      unknown: 1,
    });
    expect(r.reply_to).toEqual(['help@acme.test']);
    expect(r).not.toHaveProperty('unknown');
    expect(
      createTemplateSchema.parse({ name: 'n', html: '', reply_to: ['a@x.test', 'b@x.test'] }).reply_to,
    ).toEqual(['a@x.test', 'b@x.test']);
  });

  it('accepts null for optional fields', () => {
    expect(
      createTemplateSchema.safeParse({
        name: 'n',
        html: 'h',
        subject: null,
        text: null,
        alias: null,
        from: null,
        reply_to: null,
        variables: null,
      }).success,
    ).toBe(true);
  });

  it.each([
    [{ html: 'h' }, 'name: name must be a string'],
    [{ name: '  ', html: 'h' }, 'name: name must not be empty'],
    [{ name: 'n'.repeat(257), html: 'h' }, 'name: name has at most 256 characters'],
    [{ name: 'n' }, 'html: html is required and must be a string'],
    [
      { name: 'n', html: 'h', subject: 'a\u0085b' },
      'subject: subject must not contain line breaks or control characters',
    ],
    [
      { name: 'n', html: 'h', subject: 'a\r\nBcc: x@y' },
      'subject: subject must not contain line breaks or control characters',
    ],
    [
      { name: 'n', html: 'h', alias: 'has space' },
      'alias: alias may contain only letters, digits, -, _ and ., and must start with a letter or digit',
    ],
    [
      { name: 'n', html: 'h', alias: '-x' },
      'alias: alias may contain only letters, digits, -, _ and ., and must start with a letter or digit',
    ],
    [{ name: 'n', html: 'h', alias: 'a'.repeat(65) }, 'alias: alias has at most 64 characters'],
    [
      { name: 'n', html: 'h', alias: '0b0e3e5c-1a2b-4c3d-8e9f-001122334455' },
      'alias: alias must not have the shape of an id',
    ],
    [{ name: 'n', html: 'h', reply_to: 5 }, 'reply_to: reply_to must be a string or an array of strings'],
    [
      { name: 'n', html: 'h', variables: [{ key: 'EMAIL', type: 'string' }] },
      "variables[0].key: key 'EMAIL' is reserved",
    ],
  ])('refuses %j', (body, message) => {
    expect(messages(createTemplateSchema.safeParse(body))).toEqual([message]);
  });
});

describe('updateTemplateSchema', () => {
  it('accepts an empty body and partial bodies', () => {
    expect(updateTemplateSchema.parse({})).toEqual({});
    expect(updateTemplateSchema.parse({ subject: 'New\tone' })).toEqual({ subject: 'New\tone' });
  });

  it('applies the same rules', () => {
    expect(messages(updateTemplateSchema.safeParse({ name: '' }))).toEqual(['name: name must not be empty']);
    expect(
      messages(
        updateTemplateSchema.safeParse({ variables: [{ key: 'A', type: 'number', fallback_value: 'x' }] }),
      ),
    ).toEqual(['variables[0].fallback_value: fallback_value must be a number, as the declared type']);
  });
});
