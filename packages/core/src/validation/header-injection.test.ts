import { PetrelError, type EmailContent } from '@petrel/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAddress } from './address.js';
import { validateBatch } from './validate-batch.js';
import { validateEmail } from './validate-email.js';

/**
 * Property: whatever a send request contains, nothing validation accepts can put a line break
 * (CR, LF, U+2028, U+2029, NEL) or NUL into a header, and validation answers instead of throwing.
 */
const now = new Date('2026-11-21T10:00:00.000Z');
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

/** `seed` with one or two payloads spliced in at arbitrary positions. */
const mutated = (seed: string) =>
  fc
    .tuple(fc.array(fc.tuple(fc.nat({ max: seed.length }), payloads), { maxLength: 2 }), fc.boolean())
    .map(([cuts, keep]) => {
      if (keep) return seed;
      let out = seed;
      for (const [at, p] of cuts) out = out.slice(0, Math.min(at, out.length)) + p + out.slice(Math.min(at, out.length));
      return out;
    });

const text = (seed: string) => fc.oneof(mutated(seed), fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 8 }));
const address = fc.oneof(
  mutated('jane@example.com'),
  mutated('Jane Doe <jane@example.com>'),
  mutated('"Doe, Jane" <jane@example.com>'),
  text('a@b.co'),
);
const addressList = fc.oneof(address, fc.array(address, { maxLength: 3 }), fc.anything({ maxDepth: 1 }));

const emailBody = fc.record(
  {
    from: address,
    to: addressList,
    cc: addressList,
    bcc: addressList,
    reply_to: addressList,
    subject: text('Your receipt'),
    html: fc.string({ maxLength: 20 }),
    text: fc.string({ maxLength: 20 }),
    headers: fc.oneof(
      fc.dictionary(text('X-Entity-Ref'), text('value-1'), { maxKeys: 3 }),
      fc.anything({ maxDepth: 1 }),
    ),
    tags: fc.array(fc.record({ name: text('category'), value: text('receipt') }), { maxLength: 2 }),
    attachments: fc.array(
      fc.record(
        {
          content: fc.constantFrom('aGk=', 'bad base64'),
          path: fc.constantFrom('https://cdn.example.com/a.pdf', 'http://x\r\n.example/'),
          filename: text('invoice.pdf'),
          content_type: text('application/pdf'),
          content_id: text('logo'),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 2 },
    ),
    template: fc.record(
      {
        id: text('welcome'),
        variables: fc.dictionary(text('NAME'), fc.oneof(text('Jane'), fc.integer(), fc.anything({ maxDepth: 0 })), {
          maxKeys: 3,
        }),
      },
      { requiredKeys: [] },
    ),
    topic_id: fc.oneof(text('topic-1'), fc.constant(null)),
    scheduled_at: fc.constantFrom('in 1 hour', 'in 1 hour\r\nX: y', '2026-11-22T10:00:00Z'),
  },
  { requiredKeys: [] },
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
      fc.property(emailBody, fc.constantFrom('single', 'batch'), (body, context) => {
        const r = validateEmail(body, { now, context: context as 'single' | 'batch', index: 0 });
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
        const r = validateEmail(body, { now, context: 'single' });
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 2_000 },
    );
  });

  it('validateBatch: permissive answers every element; strict throws only a validation PetrelError', () => {
    fc.assert(
      fc.property(fc.array(emailBody, { minLength: 1, maxLength: 5 }), (body) => {
        const { accepted, errors } = validateBatch(body, { mode: 'permissive', now });
        expect(accepted.length + errors.length).toBe(body.length);
        try {
          validateBatch(body, { mode: 'strict', now });
        } catch (err) {
          expect(err).toBeInstanceOf(PetrelError);
          expect((err as PetrelError).errorName).toBe('validation_error');
        }
      }),
      { numRuns: 500 },
    );
  });
});
