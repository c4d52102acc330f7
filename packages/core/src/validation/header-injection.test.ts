import { PetrelError, type EmailContent } from '@petrel/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAddress } from '../kernel/mailbox.js';
import { validateBatch } from './validate-batch.js';
import { validateEmail } from './validate-email.js';

/**
 * Property: whatever a send request contains, nothing validation accepts can put a line break
 * (CR, LF, U+2028, U+2029, NEL) or NUL into a header, and validation answers instead of throwing.
 */
const nowMs = Date.parse('2026-11-21T10:00:00.000Z');
const LINE_BREAKING = /[\r\n\u0000\u0085\u2028\u2029]/;

const payloads = fc.constantFrom(
  '\r',
  '\n',
  '\r\n',
  '\u0000',
  '\u2028',
  '\u2029',
  '\u0085',
  '\r\nBcc: x@evil.test',
  '\nBcc: x@evil.test',
  '\u2028Bcc: x@evil.test',
  '\t',
  ' ',
  '"',
  '<',
  '>',
  ',',
  '\\',
  '',
);

/** `seed` with one to three payloads spliced in at arbitrary positions. */
const mutated = (seed: string) =>
  fc.array(fc.tuple(fc.nat({ max: seed.length }), payloads), { minLength: 1, maxLength: 3 }).map((cuts) => {
    let out = seed;
    for (const [at, p] of cuts) {
      const i = Math.min(at, out.length);
      out = out.slice(0, i) + p + out.slice(i);
    }
    return out;
  });

/** Mostly the valid `seed`; otherwise a mutation of it or an arbitrary string. */
const text = (seed: string) =>
  fc.oneof(
    { weight: 40, arbitrary: fc.constant(seed) },
    { weight: 4, arbitrary: mutated(seed) },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  );
/** Mostly `valid`; sometimes an arbitrary JSON-ish value. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 19, arbitrary: valid }, { weight: 1, arbitrary: fc.anything({ maxDepth: 1 }) });

const address = fc.oneof(
  text('jane@example.com'),
  text('Jane Doe <jane@example.com>'),
  text('"Doe, Jane" <jane@example.com>'),
);
const addressList = mostly(fc.oneof(address, fc.array(address, { minLength: 1, maxLength: 3 })));

const common = {
  to: addressList,
  cc: addressList,
  bcc: addressList,
  reply_to: addressList,
  headers: mostly(fc.dictionary(text('X-Entity-Ref'), text('value-1'), { maxKeys: 2 })),
  tags: mostly(fc.array(fc.record({ name: text('category'), value: text('receipt') }), { maxLength: 2 })),
  attachments: mostly(
    fc.array(
      fc.record(
        {
          content: fc.constantFrom('aGk=', 'aGk=', 'bad base64'),
          filename: text('invoice.pdf'),
          content_type: text('application/pdf'),
          content_id: text('logo'),
        },
        { requiredKeys: ['content'] },
      ),
      { maxLength: 2 },
    ),
  ),
  topic_id: fc.oneof(text('topic-1'), fc.constant(null)),
  scheduled_at: fc.constantFrom('in 1 hour', 'in 1 hour\r\nX: y', '2026-11-22T10:00:00Z'),
};

/** A plain email (html/text) or a template email (from and subject optional). */
const emailBody = fc.oneof(
  fc.record(
    {
      ...common,
      from: address,
      subject: text('Your receipt'),
      html: fc.string({ maxLength: 20 }),
      text: fc.string({ maxLength: 20 }),
    },
    { requiredKeys: ['from', 'to', 'subject'] },
  ),
  fc.record(
    {
      ...common,
      from: address,
      subject: text('Your receipt'),
      template: mostly(
        fc.record(
          {
            id: text('welcome'),
            variables: fc.dictionary(
              text('NAME'),
              fc.oneof(text('Jane\r\nBcc: x@evil.test'), fc.integer(), fc.anything({ maxDepth: 0 })),
              { maxKeys: 3 },
            ),
          },
          { requiredKeys: ['id'] },
        ),
      ),
    },
    { requiredKeys: ['to', 'template'] },
  ),
);

/** Every string of an accepted email that ends up in a header line. */
function headerBound(email: EmailContent): string[] {
  return [
    email.from,
    ...email.to,
    ...email.cc,
    ...email.bcc,
    ...email.reply_to,
    email.subject,
    ...Object.keys(email.headers),
    ...Object.values(email.headers),
    ...email.tags.flatMap((t) => [t.name, t.value]),
    ...email.attachments.flatMap((a) => [a.filename ?? '', a.content_type ?? '', a.content_id ?? '']),
    email.template?.id ?? '',
    email.topic_id ?? '',
  ];
}

describe('header injection (property)', () => {
  it('accepted emails carry no line-breaking character in any header-bound field', () => {
    let accepted = 0;
    fc.assert(
      fc.property(emailBody, (body) => {
        const r = validateEmail(body, { nowMs, context: 'single' });
        if (!r.ok) {
          expect(typeof r.message).toBe('string');
          return;
        }
        accepted++;
        for (const value of headerBound(r.email)) expect(value).not.toMatch(LINE_BREAKING);
        for (const a of [r.email.from, ...r.email.to, ...r.email.cc, ...r.email.bcc, ...r.email.reply_to]) {
          if (a !== '') expect(parseAddress(a).ok).toBe(true);
        }
      }),
      { numRuns: 5_000 },
    );
    // The generator must also produce valid emails, or the property says nothing.
    expect(accepted).toBeGreaterThan(50);
  });

  it('validateEmail answers for any JSON-like value and never throws', () => {
    fc.assert(
      fc.property(fc.anything(), (body) => {
        const r = validateEmail(body, { nowMs, context: 'single' });
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 2_000 },
    );
  });

  it('validateBatch: permissive answers every element; strict throws only a validation PetrelError', () => {
    fc.assert(
      fc.property(fc.array(emailBody, { minLength: 1, maxLength: 5 }), (body) => {
        const { accepted, errors } = validateBatch(body, { mode: 'permissive', nowMs });
        expect(accepted.length + errors.length).toBe(body.length);
        try {
          validateBatch(body, { mode: 'strict', nowMs });
        } catch (err) {
          expect(err).toBeInstanceOf(PetrelError);
          expect((err as PetrelError).errorName).toBe('validation_error');
        }
      }),
      { numRuns: 500 },
    );
  });
});
