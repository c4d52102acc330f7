/**
 * Internationalised addresses on the sending side, through the official `resend` SDK and the
 * whole stack to a real SMTP sink that records MAIL FROM / RCPT TO as written on the wire:
 * IDN domains leave as A-labels (RFC 5890) in the envelope and the headers; a UTF-8 local part
 * goes with SMTPUTF8 (RFC 6531) where the sink offers it, and is refused where it does not
 * while the other recipients still get the message; GET /emails/:id then lists every recipient
 * with what became of it, the refused one with its reason (so does a refusal by the server at
 * RCPT TO).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil, type SinkMessage } from '@petrel/testing';
import { sendPlain, startStack, type Stack } from './helpers.js';

/** A mailbox the sink refuses at RCPT TO (its plan reads an A-label domain as U-labels). */
const UNKNOWN_USER = 'gone@bücher.example';
const UNKNOWN_USER_REPLY = '5.1.1 <gone@xn--bcher-kva.example>: Recipient address rejected: User unknown';

let stack: Stack;
/** Same Redis, a sink that does not announce SMTPUTF8. */
let plain: Stack;
beforeAll(async () => {
  stack = await startStack({
    plan: { [UNKNOWN_USER]: [{ at: 'rcpt', code: 550, message: UNKNOWN_USER_REPLY }] },
  });
  plain = await startStack({ redis: stack.redis, sink: { smtpUtf8: false } });
});
afterAll(async () => {
  await plain?.stop();
  await stack?.stop();
});

type Email = Parameters<Stack['resend']['emails']['send']>[0];

/** Sends through the SDK; resolves with the id and the copy the sink got (Message-ID domain given). */
async function sendAndReceive(
  s: Stack,
  email: Email,
  messageIdDomain: string,
): Promise<{ id: string; msg: SinkMessage }> {
  const { data, error } = await s.resend.emails.send(email);
  expect(error).toBeNull();
  const messageId = `<${data!.id}@${messageIdDomain}>`;
  const msg = await waitUntil(() => s.sink.byMessageId(messageId)[0], {
    timeoutMs: 15_000,
    message: `${messageId} at the sink`,
  });
  return { id: data!.id, msg };
}

const isAscii = (raw: Buffer) => raw.every((b) => b < 0x80);

describe('IDN domains', () => {
  it('reach the sink as A-labels in MAIL FROM, RCPT TO and the address headers', async () => {
    const { id, msg } = await sendAndReceive(
      stack,
      {
        from: 'Büro <sender@bücher.example>',
        to: ['Name <user@bücher.example>', 'plain@example.test'],
        cc: 'cc@münchen.example',
        bcc: 'hidden@bücher.example',
        replyTo: 'reply@bücher.example',
        subject: 'IDN',
        text: 'hello',
      },
      'xn--bcher-kva.example',
    );
    expect(msg.envelope.wire).toEqual({
      from: 'sender@xn--bcher-kva.example',
      to: [
        'user@xn--bcher-kva.example',
        'plain@example.test',
        'cc@xn--mnchen-3ya.example',
        'hidden@xn--bcher-kva.example',
      ],
    });
    expect(msg.envelope.smtpUtf8).toBe(false);
    expect(isAscii(msg.raw)).toBe(true);
    expect(msg.parsed.from).toEqual({ name: 'Büro', address: 'sender@xn--bcher-kva.example' });
    expect(msg.parsed.to).toEqual([
      { name: 'Name', address: 'user@xn--bcher-kva.example' },
      { name: '', address: 'plain@example.test' },
    ]);
    expect(msg.parsed.cc).toEqual([{ name: '', address: 'cc@xn--mnchen-3ya.example' }]);
    expect(msg.parsed.replyTo).toEqual([{ name: '', address: 'reply@xn--bcher-kva.example' }]);
    expect(msg.parsed.bcc).toBeUndefined();
    await stack.settled([id]);
    const { data: email } = await stack.resend.emails.get(id);
    expect(email?.last_event).toBe('delivered');
    // the stored Message-ID is the header as written: the sender's domain as A-labels
    expect(email?.message_id).toBe(`<${id}@xn--bcher-kva.example>`);
    expect(msg.parsed.messageId).toBe(email?.message_id);
    expect(email).not.toHaveProperty('recipients');
  });

  it('need nothing from the next hop: delivered where SMTPUTF8 is not offered too', async () => {
    const { msg } = await sendAndReceive(
      plain,
      {
        from: 'sender@bücher.example',
        to: 'user@bücher.example',
        subject: 'IDN, plain hop',
        text: 'hello',
      },
      'xn--bcher-kva.example',
    );
    expect(msg.envelope.wire).toEqual({
      from: 'sender@xn--bcher-kva.example',
      to: ['user@xn--bcher-kva.example'],
    });
    expect(isAscii(msg.raw)).toBe(true);
  });
});

describe('a recipient refused by the server at RCPT TO', () => {
  it('the others get the message; GET /emails/:id shows the refusal under the address as sent', async () => {
    const { id, msg } = await sendAndReceive(
      stack,
      {
        from: 'sender@acme.test',
        to: ['ada@example.test', 'Gone <gone@bücher.example>'],
        subject: 'one unknown user',
        text: 'hello',
      },
      'acme.test',
    );
    expect(msg.envelope.wire.to).toEqual(['ada@example.test']);
    await stack.settled([id]);
    expect(stack.sink.attemptsFor(UNKNOWN_USER)).toBe(1);
    const { data: email } = await stack.resend.emails.get(id);
    expect(email?.last_event).toBe('delivered');
    expect(email).toMatchObject({
      recipients: [
        { email: 'ada@example.test', status: 'delivered' },
        {
          email: 'gone@bücher.example',
          status: 'bounced',
          bounce: {
            type: 'Permanent',
            message: expect.stringContaining(`550 ${UNKNOWN_USER_REPLY}`),
            diagnosticCode: [expect.stringMatching(/^smtp; 550 5\.1\.1 /)],
          },
        },
      ],
    });
    // the listing is Resend's shape, without the per-recipient detail
    const { data: list } = await stack.resend.emails.list();
    const listed = list?.data.find((e) => e.id === id);
    expect(listed).toBeDefined();
    expect(listed).not.toHaveProperty('recipients');
  });
});

describe('UTF-8 local parts', () => {
  it('go with SMTPUTF8 and UTF-8 headers (RFC 6532) where the sink offers it', async () => {
    const { msg } = await sendAndReceive(
      stack,
      {
        from: 'sender@acme.test',
        to: ['José <josé@example.test>', 'plain@example.test'],
        subject: 'SMTPUTF8',
        text: 'hello',
      },
      'acme.test',
    );
    expect(msg.envelope.smtpUtf8).toBe(true);
    expect(msg.envelope.wire.to).toEqual(['josé@example.test', 'plain@example.test']);
    expect(msg.raw.toString('utf8')).toContain('<josé@example.test>');
    expect(msg.parsed.to?.[0]).toEqual({ name: 'José', address: 'josé@example.test' });
  });

  it('without SMTPUTF8: that recipient is left out, the others get an ASCII message', async () => {
    const { id, msg } = await sendAndReceive(
      plain,
      {
        from: 'sender@acme.test',
        to: ['José <josé@example.test>', 'plain@example.test'],
        subject: 'no SMTPUTF8',
        text: 'hello',
      },
      'acme.test',
    );
    expect(msg.envelope.smtpUtf8).toBe(false);
    expect(msg.envelope.wire).toEqual({ from: 'sender@acme.test', to: ['plain@example.test'] });
    expect(isAscii(msg.raw)).toBe(true);
    // the refused mailbox shows as an empty group named after it (RFC 6857's downgrade)
    expect(msg.parsed.to).toEqual([
      { name: 'José <josé@example.test>', group: [] },
      { name: '', address: 'plain@example.test' },
    ]);
    await plain.settled([id]);
    expect(plain.sink.attemptsFor('josé@example.test')).toBe(0);
    // delivered to the ASCII recipient; GET /emails/:id says why the other did not get it
    const { data: email } = await plain.resend.emails.get(id);
    expect(email?.last_event).toBe('delivered');
    const reason = 'recipient josé@example.test needs SMTPUTF8, which the receiving server does not offer';
    expect(email).toMatchObject({
      recipients: [
        {
          email: 'josé@example.test',
          status: 'bounced',
          bounce: {
            type: 'Permanent',
            subType: 'General',
            message: reason,
            diagnosticCode: [`smtp; 553 5.6.7 ${reason}`],
          },
        },
        { email: 'plain@example.test', status: 'delivered' },
      ],
    });
  });

  it('without SMTPUTF8: a UTF-8 sender bounces for good, with the reason, and nothing is sent', async () => {
    const id = await sendPlain(plain, 'josé@acme.test', 'plain@example.test', 'no SMTPUTF8 for the sender');
    await plain.settled([id]);
    expect((await plain.resend.emails.get(id)).data?.last_event).toBe('bounced');
    expect(plain.sink.byMessageId(`<${id}@acme.test>`)).toEqual([]);
    const bounces = (await plain.teamEvents('email.bounced')).filter(
      (e) => (e.data as { email_id?: string }).email_id === id,
    );
    expect(bounces).toEqual([
      expect.objectContaining({
        data: expect.objectContaining({
          bounce: expect.objectContaining({
            type: 'Permanent',
            message: 'sender josé@acme.test needs SMTPUTF8, which the receiving server does not offer',
          }),
        }),
      }),
    ]);
  });
});
