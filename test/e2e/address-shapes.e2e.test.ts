/**
 * Address shapes (a bare address or the form `Display Name <address>`): which are
 * accepted, which are refused with a message naming the field, and — for every accepted one —
 * that the SMTP envelope the worker builds holds exactly the address validation saw. The worker
 * does not reuse the validator's parser (the mailer splits at the last `<`), so the two are
 * checked against each other: by property on the parsers, then end to end through the stack.
 */
import { domainToASCII } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAddress, validateEmail } from '@petrel/core';
import { buildMessage } from '@petrel/mailer';
import { waitUntil } from '@petrel/testing';
import { fileStack } from './helpers.js';

/** A validated address as it goes on the wire: an IDN domain as its A-labels (RFC 5890). */
function onTheWire(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  return /[^\x20-\x7e]/.test(domain) ? `${address.slice(0, at)}@${domainToASCII(domain)}` : address;
}

/** The envelope recipients the worker's message builder derives from validated `to` strings. */
function envelopeTo(to: string[]): string[] {
  return buildMessage({
    emailId: 'e1',
    messageIdDomain: 'acme.test',
    date: new Date(),
    from: 'sender@acme.test',
    to,
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 's',
    text: 'x',
    headers: {},
    attachments: [],
  }).envelope.to;
}

/** Accepted shapes, each with the one address it must be delivered to. */
const ACCEPTED: [input: string, address: string][] = [
  ['plain@good.test', 'plain@good.test'],
  ['  padded@good.test\t', 'padded@good.test'],
  ['Good Name <named@good.test>', 'named@good.test'],
  ['Good<tight@good.test>', 'tight@good.test'],
  ['"Doe, J" <quoted@good.test>', 'quoted@good.test'],
  ['"a@good.test" <lookalike@other.test>', 'lookalike@other.test'],
  ['"Say <x@good.test>" <inner@other.test>', 'inner@other.test'],
  ['"x \\"<y@good.test>\\"" <escaped@other.test>', 'escaped@other.test'],
  ['"back\\\\" <backslash@other.test>', 'backslash@other.test'],
  ['Zoë <unicode-name@good.test>', 'unicode-name@good.test'],
];

/** `input` with `+tag` added to the local part of its (last) occurrence of `address`. */
function tagged(input: string, address: string, tag: string): string {
  const at = input.lastIndexOf(address);
  const local = address.slice(0, address.indexOf('@'));
  return `${input.slice(0, at)}${local}+${tag}${input.slice(at + local.length)}`;
}

/** Refused shapes, each with a part of the reason. */
const REFUSED: [input: string, reason: string][] = [
  ['<angle@evil.test>', 'angle brackets without a display name'],
  [' <angle@evil.test> ', 'angle brackets without a display name'],
  ['"" <angle@evil.test>', 'angle brackets without a display name'],
  ['" " <angle@evil.test>', 'angle brackets without a display name'],
  ['\u00a0<angle@evil.test>', 'angle brackets without a display name'],
  ['\u200b<angle@evil.test>', 'angle brackets without a display name'],
  ['<<a@evil.test>>', 'unexpected text after ">"'],
  ['Name <a@good.test<b@evil.test>', 'more than one "<"'],
  ['Name <a@good.test> <b@evil.test>', 'unexpected text after ">"'],
  ['a@good.test <b@evil.test>', 'must be in double quotes'],
  ['"a@good.test" b@evil.test', 'followed by <address>'],
  ['"a" "b" <c@evil.test>', 'followed by <address>'],
  ['"a\\\\"b" <c@evil.test>', 'followed by <address>'],
  ['a@good.test (b@evil.test)', 'more than one @'],
  ['Name (b@evil.test) <a@good.test>', 'must be in double quotes'],
  ['<a@good.test> (comment)', 'unexpected text after ">"'],
  ['g: a@evil.test;', 'invalid local part'],
  ['g: <a@evil.test>;', 'must be in double quotes'],
  ['undisclosed-recipients:;', 'missing @'],
  ['Name <@relay.test:a@evil.test>', 'more than one @'],
  ['a@good.test, b@evil.test', 'more than one @'],
];

describe('validated address = envelope address (parsers, by property)', () => {
  const nowMs = Date.now();
  it.each(ACCEPTED)('%j is delivered to %s', (input, address) => {
    const parsed = parseAddress(input);
    expect(parsed).toMatchObject({ ok: true, address });
    const v = validateEmail(
      { from: 'a@acme.test', to: [input], subject: 's', text: 'x' },
      { nowMs, context: 'single' },
    );
    if (!v.ok) throw new Error(v.message);
    expect(envelopeTo(v.email.to)).toEqual([address]);
  });

  it('for any string the validator accepts, the worker envelope holds exactly that address, an IDN domain as A-labels', () => {
    // Strings built from the characters that matter to address syntax, around real addresses.
    const piece = fc.constantFrom(
      'a@good.test',
      'b@evil.test',
      '<',
      '>',
      '"',
      '\\',
      '@',
      ',',
      ';',
      ':',
      '(',
      ')',
      ' ',
      '\t',
      '\u00a0',
      '\u200b',
      'Name',
      'x',
      '.',
      'é',
    );
    const candidate = fc.array(piece, { maxLength: 10 }).map((p) => p.join(''));
    let accepted = 0;
    fc.assert(
      fc.property(candidate, (input) => {
        const parsed = parseAddress(input);
        if (!parsed.ok) return;
        accepted++;
        const v = validateEmail(
          { from: 'a@acme.test', to: [input], subject: 's', text: 'x' },
          { nowMs, context: 'single' },
        );
        if (!v.ok) throw new Error(`${JSON.stringify(input)}: ${v.message}`);
        expect(envelopeTo(v.email.to)).toEqual([onTheWire(parsed.address)]);
        if (parsed.name !== undefined) expect(parsed.name.trim()).not.toBe('');
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(200);
  });
});

describe('address shapes through the stack', () => {
  const stack = fileStack();

  it('refuses each bad shape naming the field, in a single send and in a batch', async () => {
    for (const [input, reason] of REFUSED) {
      const single = await stack.resend.emails.send({
        from: 'Acme <sender@acme.test>',
        to: ['ok@good.test', input],
        subject: 's',
        text: 'x',
      });
      expect(single.error, input).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(single.error!.message, input).toMatch(/^to\[1\]: invalid address \(/);
      expect(single.error!.message, input).toContain(reason);
    }
    const from = await stack.resend.emails.send({
      from: '<sender@acme.test>',
      to: 'ok@good.test',
      subject: 's',
      text: 'x',
    });
    expect(from.error).toMatchObject({ statusCode: 422 });
    expect(from.error!.message).toMatch(/^from: invalid address \(angle brackets without a display name/);

    const batch = await stack.resend.batch.send(
      REFUSED.map(([input]) => ({
        from: 'sender@acme.test',
        to: [input],
        cc: 'c@good.test',
        subject: 's',
        text: 'x',
      })),
      { batchValidation: 'permissive' },
    );
    expect(batch.error).toBeNull();
    expect(batch.data!.data).toEqual([]);
    const errors = batch.data!.errors ?? [];
    expect(errors.map((e) => e.index)).toEqual(REFUSED.map((_, i) => i));
    errors.forEach((e, i) => {
      expect(e.message).toMatch(new RegExp(`^emails\\[${i}\\]\\.to\\[0\\]: invalid address \\(`));
      expect(e.message).toContain(REFUSED[i]![1]);
    });
    // anything these requests had queued would be in the sink once no send job is left
    await stack.drained();
    expect(stack.sink.messages.filter((m) => m.envelope.to.some((a) => a.endsWith('@evil.test')))).toEqual(
      [],
    );
  });

  it('delivers each accepted shape to exactly its validated address (to, cc and bcc)', async () => {
    stack.sink.clear();
    const sent = await stack.resend.batch.send(
      ACCEPTED.map(([input, address]) => ({
        from: 'Acme <sender@acme.test>',
        to: [input],
        cc: [tagged(input, address, 'cc')],
        bcc: [tagged(input, address, 'bcc')],
        subject: 's',
        text: 'x',
      })),
    );
    expect(sent.error).toBeNull();
    const ids = sent.data!.data.map((d) => d.id);
    expect(ids).toHaveLength(ACCEPTED.length);
    const byId = (id: string) => stack.sink.byMessageId(`<${id}@acme.test>`);
    await waitUntil(() => ids.every((id) => byId(id).length === 1), {
      timeoutMs: 15_000,
      message: 'all sent',
    });
    ids.forEach((id, i) => {
      const address = ACCEPTED[i]![1];
      const msgs = byId(id);
      expect(msgs).toHaveLength(1);
      expect([...msgs[0]!.envelope.to].sort()).toEqual(
        [address, tagged(address, address, 'cc'), tagged(address, address, 'bcc')].sort(),
      );
    });
  });
});
