/**
 * The events API's validation, as the routes apply it: the wire schemas of contracts rendered by
 * the one formatter, and the use-case rules that come before any stored state (the exactly-one
 * rule, the payload bound and its coercion).
 */
import { describe, expect, it } from 'vitest';
import {
  CUSTOM_EVENT_LIMITS,
  PetrelError,
  createEventSchema,
  formatIssues,
  sendEventSchema,
  updateEventSchema,
  type CustomEventRecord,
} from '@petrel/contracts';
import type { z } from 'zod';
import { checkPayloadBounds, sendTarget, typedPayload } from './use-cases.js';

function refusal<S extends z.ZodType>(schema: S, body: unknown): string | undefined {
  const res = schema.safeParse(body);
  return res.success ? undefined : formatIssues(res.error.issues, { input: body });
}

describe('POST /events body', () => {
  const cases: [unknown, string | undefined][] = [
    [{ name: 'user.signed_up' }, undefined],
    [{ name: 'user.signed_up', schema: null }, undefined],
    [{ name: 'Ünïcode name with spaces', schema: { plan: 'string', n: 'number' } }, undefined],
    [{ name: 'a'.repeat(CUSTOM_EVENT_LIMITS.nameLength) }, undefined],
    [{}, 'name: is required'],
    [{ name: 42 }, 'name: must be a string'],
    [{ name: '' }, 'name: must not be empty'],
    [{ name: 'a'.repeat(CUSTOM_EVENT_LIMITS.nameLength + 1) }, 'name: at most 255 characters'],
    [{ name: 'a\nb' }, 'name: must not contain control characters'],
    [{ name: 'a\u0085b' }, 'name: must not contain control characters'],
    [{ name: ' padded' }, 'name: must not start or end with spaces'],
    [{ name: '0190a0b0-0000-7000-8000-000000000000' }, 'name: must not have the shape of an id (UUID)'],
    [{ name: 'Resend:internal' }, 'name: must not start with the reserved prefix `resend:`'],
    [{ name: 'x', schema: [] }, 'schema: must be an object of field → type, or null'],
    [
      { name: 'x', schema: { plan: 'text' } },
      "schema.plan: must be one of 'string', 'number', 'boolean', 'date'",
    ],
    [
      { name: 'x', schema: { 'a.b': 'string' } },
      'schema["a.b"]: field name must start with a letter or underscore, then letters, digits or underscores',
    ],
    [
      { name: 'x', schema: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'string'])) },
      'schema: at most 50 fields',
    ],
  ];
  it.each(cases)('%j → %s', (body, message) => {
    expect(refusal(createEventSchema, body)).toBe(message);
  });

  it('keeps a __proto__ field as data', () => {
    const body = JSON.parse('{"name":"x","schema":{"__proto__":"number"}}') as unknown;
    const parsed = createEventSchema.parse(body);
    expect(Object.keys(parsed.schema!)).toEqual(['__proto__']);
  });
});

describe('PATCH /events/:idOrName body', () => {
  const cases: [unknown, string | undefined][] = [
    [{ schema: null }, undefined],
    [{ schema: { at: 'date' } }, undefined],
    [{}, 'schema: is required'],
    [{ schema: 'string' }, 'schema: must be an object of field → type, or null'],
  ];
  it.each(cases)('%j → %s', (body, message) => {
    expect(refusal(updateEventSchema, body)).toBe(message);
  });
});

describe('POST /events/send body and target', () => {
  const ID = '0190a0b0-0000-7000-8000-00000000000A';
  const cases: [unknown, string | undefined][] = [
    [{ event: 'e', contact_id: ID }, undefined],
    [{ event: 'e', email: 'a@example.com', payload: { x: 1 } }, undefined],
    [{ event: 'e', email: 'a@example.com', contact_id: null, payload: null }, undefined],
    [{ contact_id: ID }, 'event: is required'],
    [{ event: 'e', contact_id: 7 }, 'contact_id: must be a string'],
    [{ event: 'e', email: 'a@example.com', payload: [1] }, 'payload: must be an object'],
    [{ event: 'e', email: 'a@example.com', payload: 'x' }, 'payload: must be an object'],
  ];
  it.each(cases)('%j → %s', (body, message) => {
    expect(refusal(sendEventSchema, body)).toBe(message);
  });

  const targets: [Record<string, unknown>, string][] = [
    [{}, 'contact_id, email: exactly one of contact_id and email is required'],
    [{ contact_id: null, email: null }, 'contact_id, email: exactly one of contact_id and email is required'],
    [
      { contact_id: ID, email: 'a@example.com' },
      'contact_id, email: give exactly one of contact_id and email, not both',
    ],
    [{ contact_id: 'a@example.com' }, 'contact_id: must be a contact id (UUID)'],
    [{ email: 'not an address' }, 'email: is not a valid email address'],
    [{ email: 'Ann <a@example.com>' }, 'email: must be a bare address, without a display name'],
  ];
  it.each(targets)('%j → %s', (input, message) => {
    expect(() => sendTarget(input)).toThrow(expect.objectContaining({ statusCode: 422 }) as Error);
    try {
      sendTarget(input);
    } catch (err) {
      expect((err as PetrelError).message.startsWith(message)).toBe(true);
    }
  });

  it('normalises the contact id and keeps the address', () => {
    expect(sendTarget({ contact_id: ID })).toEqual({ contactId: ID.toLowerCase() });
    expect(sendTarget({ email: 'a@example.com' })).toEqual({ email: 'a@example.com' });
  });
});

describe('typedPayload', () => {
  const defined = (schema: CustomEventRecord['schema']): CustomEventRecord => ({
    id: 'id',
    name: 'n',
    schema,
    created_at: '',
    updated_at: '',
  });

  it('passes the payload of an undefined event, or of one without a schema, as sent', () => {
    const payload = { seats: '3', deep: { a: [1] } };
    expect(typedPayload(null, payload)).toEqual(payload);
    expect(typedPayload(defined(null), payload)).toEqual(payload);
  });

  it('coerces against the schema and names the refused field under payload', () => {
    expect(typedPayload(defined({ seats: 'number' }), { seats: '3' })).toEqual({ seats: 3 });
    expect(() => typedPayload(defined({ seats: 'number' }), { seats: 'three' })).toThrow(
      'payload.seats: must be a number or a decimal string (got a string)',
    );
  });
});

describe('checkPayloadBounds', () => {
  const nested = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = { leaf: 1 };
    for (let i = 1; i < levels; i++) v = i % 2 ? { a: [v] } : { a: v };
    return v;
  };
  const depthOf = (levels: number): Record<string, unknown> => {
    let v: Record<string, unknown> = {};
    for (let i = 1; i < levels; i++) v = { a: v };
    return v;
  };

  it('bounds the size as JSON', () => {
    expect(() =>
      checkPayloadBounds({ blob: 'x'.repeat(CUSTOM_EVENT_LIMITS.payloadBytes - 20) }),
    ).not.toThrow();
    const big = { blob: 'x'.repeat(CUSTOM_EVENT_LIMITS.payloadBytes) };
    expect(() => checkPayloadBounds(big)).toThrow(/^payload: at most 32768 bytes as JSON/);
  });

  it('bounds the nesting, arrays included, without recursing (100,000 levels)', () => {
    expect(() => checkPayloadBounds(depthOf(CUSTOM_EVENT_LIMITS.payloadDepth))).not.toThrow();
    expect(() => checkPayloadBounds(depthOf(CUSTOM_EVENT_LIMITS.payloadDepth + 1))).toThrow(
      'payload: must nest at most 32 levels deep',
    );
    expect(() => checkPayloadBounds(nested(40))).toThrow('payload: must nest at most 32 levels deep');
    expect(() => checkPayloadBounds(depthOf(100_000))).toThrow('payload: must nest at most 32 levels deep');
  });
});
