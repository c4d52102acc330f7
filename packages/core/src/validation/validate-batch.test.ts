import { LIMITS, PetrelError } from '@petrel/contracts';
import { describe, expect, it } from 'vitest';
import { validateBatch } from './validate-batch.js';

const nowMs = Date.parse('2026-11-21T10:00:00.000Z');
const email = (i: number) => ({
  from: 'Acme <hello@acme.example>',
  to: [`user${i}@example.com`],
  subject: `Hello ${i}`,
  html: '<p>Hi</p>',
});
const emails = (n: number) => Array.from({ length: n }, (_, i) => email(i));

function thrown(fn: () => unknown): PetrelError {
  try {
    fn();
  } catch (err) {
    if (err instanceof PetrelError) return err;
    throw err;
  }
  throw new Error('expected a PetrelError');
}

describe('validateBatch', () => {
  it(`accepts ${LIMITS.emailsPerBatch} emails in request order`, () => {
    const { accepted, errors } = validateBatch(emails(100), { mode: 'strict', nowMs });
    expect(errors).toEqual([]);
    expect(accepted.map((a) => a.index)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    expect(accepted[42]?.email.to).toEqual(['user42@example.com']);
  });

  it(`refuses ${LIMITS.emailsPerBatch + 1} emails, an empty array and non-arrays as a whole`, () => {
    for (const mode of ['strict', 'permissive'] as const) {
      const tooMany = thrown(() => validateBatch(emails(101), { mode, nowMs }));
      expect(tooMany.errorName).toBe('validation_error');
      expect(tooMany.statusCode).toBe(422);
      expect(tooMany.message).toBe('body: at most 100 emails per batch');
      expect(thrown(() => validateBatch([], { mode, nowMs })).message).toBe(
        'body: must be a JSON array of 1 to 100 emails',
      );
      expect(thrown(() => validateBatch(email(0), { mode, nowMs })).errorName).toBe('validation_error');
      expect(thrown(() => validateBatch(null, { mode, nowMs })).errorName).toBe('validation_error');
    }
  });

  it('strict: one invalid email rejects the whole batch with its message', () => {
    const body = emails(5);
    body[3] = { ...email(3), to: Array.from({ length: 51 }, (_, i) => `u${i}@example.com`) };
    const err = thrown(() => validateBatch(body, { mode: 'strict', nowMs }));
    expect(err.errorName).toBe('validation_error');
    expect(err.message).toBe('emails[3].to: at most 50 recipients');
  });

  it('permissive: valid emails accepted with their index, invalid ones reported', () => {
    const body: unknown[] = emails(5);
    body[1] = { ...email(1), tags: [{ name: 'a b', value: 'x' }] };
    body[3] = { ...email(3), attachments: [{ content: 'aGk=' }] };
    body[4] = 'not an email';
    const { accepted, errors } = validateBatch(body, { mode: 'permissive', nowMs });
    expect(accepted.map((a) => a.index)).toEqual([0, 2]);
    expect(errors).toEqual([
      { index: 1, message: 'emails[1].tags[0].name: only a-z A-Z 0-9 _ - allowed' },
      { index: 3, message: 'emails[3].attachments: not supported in batch' },
      { index: 4, message: 'emails[4]: must be an object' },
    ]);
  });

  it('permissive: every email invalid still answers, with no accepted email', () => {
    const { accepted, errors } = validateBatch([{}, { to: 'x' }], { mode: 'permissive', nowMs });
    expect(accepted).toEqual([]);
    expect(errors.map((e) => e.message)).toEqual([
      'emails[0].from: is required',
      'emails[1].from: is required',
    ]);
  });

  it('refuses scheduled_at in batch and template with html', () => {
    const body = [
      { ...email(0), scheduled_at: 'in 1 hour' },
      { to: 'a@example.com', template: { id: 't' }, html: '<p>x</p>' },
      { to: 'a@example.com', template: { id: 't', variables: { NAME: 'x' } } },
    ];
    const { accepted, errors } = validateBatch(body, { mode: 'permissive', nowMs });
    expect(accepted.map((a) => a.index)).toEqual([2]);
    expect(errors).toEqual([
      { index: 0, message: 'emails[0].scheduled_at: not supported in batch' },
      { index: 1, message: 'emails[1].template: cannot be combined with html, text or react' },
    ]);
  });
});
