import { describe, expect, it } from 'vitest';
import { envelopeRecipients } from './recipients.js';
import { bareAddress, mailboxKey } from '../kernel/mailbox.js';

describe('bareAddress', () => {
  it.each([
    ['ada@example.test', 'ada@example.test'],
    ['  ada@example.test ', 'ada@example.test'],
    ['Ada <ada@example.test>', 'ada@example.test'],
    ['"Lovelace, Ada" <ada@example.test>', 'ada@example.test'],
    ['"a <b@c.d>" < ada@example.test >', 'ada@example.test'],
  ])('%s → %s', (input, bare) => expect(bareAddress(input)).toBe(bare));
});

describe('envelopeRecipients', () => {
  it('to, then cc, then bcc; the first spelling of an address wins', () => {
    expect(
      envelopeRecipients({
        to: ['Ada <Ada@Example.test>'],
        cc: ['ada@example.test', 'bob@example.test'],
        bcc: ['BOB@example.test', 'cy@example.test'],
      }),
    ).toEqual(['Ada@Example.test', 'bob@example.test', 'cy@example.test']);
  });
  it('nothing in, nothing out', () => {
    expect(envelopeRecipients({ to: [], cc: [], bcc: [] })).toEqual([]);
  });
});

describe('mailboxKey', () => {
  it.each([
    ['Ada@Example.test', 'ada@example.test'],
    ['ada@bücher.example', 'ada@xn--bcher-kva.example'],
    ['Ada@BÜCHER.example', 'ada@xn--bcher-kva.example'],
    ['ada@xn--bcher-kva.example', 'ada@xn--bcher-kva.example'],
    // a UTF-8 local part has no ASCII form: only its case is folded
    ['José@bücher.example', 'josé@xn--bcher-kva.example'],
    ['josé@example.test', 'josé@example.test'],
  ])('%s → %s', (address, key) => expect(mailboxKey(address)).toBe(key));
});
