import { describe, expect, it } from 'vitest';
import { formatIssues } from '@petrel/contracts';
import { MemorySuppressions } from '@petrel/testing';
import {
  addSuppressionSchema,
  addSuppressionsSchema,
  removeSuppressionsSchema,
} from './suppression-schemas.js';
import {
  addSuppression,
  addSuppressions,
  removeSuppression,
  removeSuppressions,
} from './suppression-use-cases.js';

type Schema = typeof addSuppressionSchema | typeof addSuppressionsSchema | typeof removeSuppressionsSchema;
function problem(schema: Schema, body: unknown): string | undefined {
  const res = schema.safeParse(body);
  return res.success ? undefined : formatIssues(res.error.issues, { input: body });
}

describe('suppression schemas', () => {
  it.each([
    [addSuppressionSchema, {}, 'email: is required'],
    [addSuppressionSchema, { email: 'nope' }, /^email: invalid address \(/],
    [
      addSuppressionSchema,
      { email: 'Ada <ada@acme.test>' },
      'email: must be a bare email address (local@domain), without a display name',
    ],
    [addSuppressionsSchema, { emails: [] }, 'emails: must be an array of 1 to 100 email addresses'],
    [
      addSuppressionsSchema,
      { emails: 'a@acme.test' },
      'emails: must be an array of 1 to 100 email addresses',
    ],
    [addSuppressionsSchema, { emails: ['a@acme.test', 'bad'] }, /^emails\[1\]: invalid address/],
    [
      addSuppressionsSchema,
      { emails: Array.from({ length: 101 }, (_, i) => `u${i}@acme.test`) },
      'emails: must be an array of 1 to 100 email addresses',
    ],
    [removeSuppressionsSchema, {}, 'body: emails or ids is required'],
    [
      removeSuppressionsSchema,
      { emails: ['a@acme.test'], ids: ['x'] },
      'body: give either emails or ids, not both',
    ],
    [removeSuppressionsSchema, { ids: [''] }, 'ids[0]: must not be empty'],
  ] as [Schema, unknown, string | RegExp][])('refuses %#: %s', (schema, body, message) => {
    const got = problem(schema, body);
    if (typeof message === 'string') expect(got).toBe(message);
    else expect(got).toMatch(message);
  });

  it('accepts 100 addresses and trims blanks around an address', () => {
    const emails = Array.from({ length: 100 }, (_, i) => `u${i}@acme.test`);
    expect(addSuppressionsSchema.parse({ emails }).emails).toHaveLength(100);
    expect(addSuppressionSchema.parse({ email: ' ada@acme.test ' })).toEqual({ email: 'ada@acme.test' });
  });
});

describe('suppression use-cases', () => {
  it('adds manual entries, once per mailbox', async () => {
    const suppressions = new MemorySuppressions();
    const ports = { suppressions };
    const { id } = await addSuppression({ teamId: 't', input: { email: 'Ada@acme.test' } }, ports);
    expect(await suppressions.get('t', id)).toMatchObject({ origin: 'manual', source_id: null });
    await expect(addSuppression({ teamId: 't', input: { email: 'ada@ACME.test' } }, ports)).resolves.toEqual({
      id,
    });
    const { ids } = await addSuppressions(
      { teamId: 't', input: { emails: ['b@acme.test', 'ADA@acme.test'] } },
      ports,
    );
    expect(ids[1]).toBe(id);
    expect(suppressions.events.map((e) => e.type)).toEqual(['suppression.added', 'suppression.added']);
  });

  it('removes by id or address; unknown is 404 alone and deleted: false in a batch', async () => {
    const suppressions = new MemorySuppressions();
    const ports = { suppressions };
    const { id } = await addSuppression({ teamId: 't', input: { email: 'a@acme.test' } }, ports);
    await expect(removeSuppression({ teamId: 't', idOrEmail: 'A@acme.test' }, ports)).resolves.toEqual({
      id,
    });
    await expect(removeSuppression({ teamId: 't', idOrEmail: id }, ports)).rejects.toMatchObject({
      statusCode: 404,
      message: 'Suppression not found',
    });
    const b = await addSuppression({ teamId: 't', input: { email: 'b@acme.test' } }, ports);
    await expect(
      removeSuppressions({ teamId: 't', input: { emails: ['b@acme.test', 'c@acme.test'] } }, ports),
    ).resolves.toEqual([
      { id: b.id, deleted: true },
      { id: 'c@acme.test', deleted: false },
    ]);
  });
});
