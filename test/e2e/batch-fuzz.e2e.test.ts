/**
 * Property-based fuzz of POST /emails/batch (fast-check): thousands of generated bodies —
 * valid emails mutated with CR, LF, NUL, U+2028, header-injection strings, odd types and
 * address tricks. Never a 5xx; whatever is accepted reaches the SMTP sink with no injected
 * header and only the validated recipients.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileStack } from './helpers.js';

const stack = fileStack({ env: { WORKER_CONCURRENCY: '50', SMTP_POOL_SIZE: '10' } });

const nasty = fc.constantFrom(
  '\r',
  '\n',
  '\r\n',
  '\0',
  '\u2028',
  '\u2029',
  '\r\nBcc: x@evil.test',
  '\nX-Injected: 1',
  '"',
  '<',
  '>',
  ',',
  ';',
  ':',
  '=?utf-8?q?x?=',
  '🦜',
  'é',
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.tuple(fc.string({ maxLength: 20 }), nasty, fc.string({ maxLength: 20 })).map((p) => p.join('')),
);
const address = fc.oneof(
  fc.constantFrom('user@good.test', 'Good Name <user@good.test>', '"Doe, J" <j@good.test>'),
  fc.constantFrom(
    '"a@evil.test x"@good.test',
    'a@good.test,b@evil.test',
    '<a@evil.test>',
    'a@good.test (comment)',
    `${'a'.repeat(250)}@good.test`,
    'a@evil.test\r\nBcc: c@evil.test',
  ),
  text.map((t) => `${t} <user@good.test>`),
  text,
);
const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 2 });
const good = fc.constantFrom(
  'user@good.test',
  'Good Name <user@good.test>',
  '"Doe, J" <j@good.test>',
  'Ünïcode Näme <u@good.test>',
);
/** Mostly well-formed values with a hostile one now and then, so both paths get exercised. */
const mostly = <T, U>(ok: fc.Arbitrary<T>, bad: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 6, arbitrary: ok }, { weight: 1, arbitrary: bad });
const emailArb = fc.record(
  {
    from: mostly(good, fc.oneof(address, fc.integer(), fc.constant(null))),
    to: mostly(
      fc.oneof(good, fc.array(good, { minLength: 1, maxLength: 3 })),
      fc.oneof(address, fc.array(address, { maxLength: 3 }), fc.constant([])),
    ),
    subject: mostly(
      fc.string({ maxLength: 60 }).filter((t) => !/[\r\n\0\u2028\u2029]/.test(t)),
      fc.oneof(text, fc.integer()),
    ),
    html: maybe(fc.oneof(text, fc.constant('<p>hi</p>'))),
    text: maybe(text),
    cc: maybe(mostly(good, fc.oneof(address, fc.array(address, { maxLength: 2 })))),
    reply_to: maybe(mostly(good, address)),
    headers: maybe(
      fc.dictionary(
        mostly(
          fc.constantFrom('X-Ok', 'X-Entity-Ref'),
          fc.oneof(fc.constantFrom('Bcc', 'X Bad', 'X-A\r\nB'), text),
        ),
        mostly(fc.constantFrom('v', 'ünï'), fc.oneof(text, fc.integer())),
        { maxKeys: 2 },
      ),
    ),
    tags: maybe(
      fc.array(
        fc.record({
          name: mostly(fc.constantFrom('ok', 'a_b-c'), text),
          value: mostly(fc.constantFrom('v'), text),
        }),
        { maxLength: 2 },
      ),
    ),
    extra: fc.option(fc.anything(), { nil: undefined, freq: 10 }),
  },
  { requiredKeys: ['from', 'to', 'subject'] },
);
const bodyArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(emailArb, { minLength: 1, maxLength: 5 }) },
  { weight: 1, arbitrary: fc.anything() },
);

describe('POST /emails/batch fuzz', () => {
  it('never answers 5xx and never lets CR/LF or extra recipients through', async () => {
    const acceptedTo = new Map<string, string[]>(); // email id → validated recipients (to+cc)
    await fc.assert(
      fc.asyncProperty(bodyArb, fc.boolean(), async (body, permissive) => {
        const res = await stack.http('/emails/batch', {
          method: 'POST',
          body: JSON.stringify(body),
          headers: { 'x-batch-validation': permissive ? 'permissive' : 'strict' },
        });
        expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
        if (res.status !== 200) {
          expect(res.body).toMatchObject({
            statusCode: res.status,
            name: expect.any(String),
            message: expect.any(String),
          });
          return;
        }
        const items = body as Record<string, unknown>[];
        const errorIdx = new Set(((res.body.errors ?? []) as { index: number }[]).map((e) => e.index));
        const valid = items.map((e, i) => ({ e, i })).filter(({ i }) => !errorIdx.has(i));
        expect(res.body.data).toHaveLength(valid.length);
        res.body.data.forEach((d: { id: string }, k: number) => {
          const e = valid[k]!.e;
          // An optional list given as null or "" means none (the validator treats both as absent).
          const list = (v: unknown) =>
            (v === undefined || v === null || v === '' ? [] : Array.isArray(v) ? v : [v]) as string[];
          acceptedTo.set(
            d.id,
            [...list(e.to), ...list(e.cc)].map((a) => /<([^>]+)>\s*$/.exec(a)?.[1] ?? a),
          );
        });
      }),
      { numRuns: 2000 },
    );

    // The generator must exercise the accepting path too, or the checks below prove nothing.
    expect(acceptedTo.size).toBeGreaterThan(100);
    // Everything accepted arrives; no header was injected and no recipient invented.
    const ids = [...acceptedTo.keys()];
    await waitUntil(
      () => ids.every((id) => stack.sink.messages.some((m) => m.parsed.messageId?.startsWith(`<${id}@`))),
      {
        timeoutMs: 60_000,
        message: 'not every accepted email reached the sink',
      },
    );
    for (const m of stack.sink.messages) {
      const headerBlock = m.raw.subarray(0, m.raw.indexOf('\r\n\r\n')).toString('latin1');
      expect(headerBlock).not.toMatch(/\r(?!\n)|(?<!\r)\n/); // only CRLF line ends
      expect(headerBlock).not.toMatch(/^(bcc|x-injected):/im);
      for (const line of headerBlock.split('\r\n')) expect(line.length).toBeLessThanOrEqual(998);
      // The RCPT set is exactly the validated recipients of an accepted email: an injected
      // address (`a@good.test,b@evil.test`, `\r\nBcc: …`, quoted tricks) can never add one.
      // (`<a@evil.test>` without a display name is refused: addresses are bare or `Name <addr>`.)
      const id = /^<([^@]+)@/.exec(m.parsed.messageId ?? '')?.[1];
      const expected = acceptedTo.get(id ?? '');
      expect(expected, `message ${m.parsed.messageId} was never accepted`).toBeDefined();
      expect([...m.envelope.to].sort()).toEqual([...new Set(expected)].sort());
    }
  }, 300_000);
});
