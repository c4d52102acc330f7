import { describe, expect, it } from 'vitest';
import { buildMessage } from './build-message.js';
import { planAttempt, type OutgoingMessage } from './transport.js';

const build = (from: string, to: string[], replyTo: string[] = []): OutgoingMessage =>
  buildMessage({
    emailId: 'plan-1',
    messageIdDomain: 'petrel.test',
    date: new Date('2026-11-21T09:12:00Z'),
    from,
    to,
    cc: [],
    bcc: [],
    reply_to: replyTo,
    subject: 'plan',
    text: 'x',
    headers: {},
    attachments: [],
  });

const reason = (role: string, address: string) =>
  `${role} ${address} needs SMTPUTF8, which the receiving server does not offer`;

describe('planAttempt: what goes over a session, by its SMTPUTF8 offer', () => {
  it('an ASCII message (IDN domains are A-labels already) goes as it is either way', () => {
    const msg = build('sender@bücher.example', ['user@bücher.example']);
    for (const offered of [true, false]) {
      expect(planAttempt(msg, offered)).toEqual({
        envelope: { from: 'sender@xn--bcher-kva.example', to: ['user@xn--bcher-kva.example'] },
        raw: msg.raw,
        refused: [],
      });
    }
  });

  it('offered: a UTF-8 envelope goes with the UTF-8 headers, declared 8-bit', () => {
    const msg = build('sender@petrel.test', ['josé@example.com', 'plain@example.com']);
    expect(planAttempt(msg, true)).toEqual({
      envelope: {
        from: 'sender@petrel.test',
        to: ['josé@example.com', 'plain@example.com'],
        use8BitMime: true,
      },
      raw: msg.raw,
      refused: [],
    });
  });

  it('not offered: the UTF-8 recipient is refused, the others get the ASCII form', () => {
    const msg = build('sender@petrel.test', ['josé@example.com', 'plain@example.com']);
    const plan = planAttempt(msg, false);
    expect(plan.envelope).toEqual({ from: 'sender@petrel.test', to: ['plain@example.com'] });
    expect(plan.raw).toBe(msg.asciiRaw);
    expect(plan.refused).toEqual([
      expect.objectContaining({
        address: 'josé@example.com',
        permanent: true,
        detail: reason('recipient', 'josé@example.com'),
      }),
    ]);
    expect(plan.fatal).toBeUndefined();
  });

  it.each([
    // a UTF-8 sender fails the whole message, the recipients are not at fault
    { from: 'josé@example.com', to: 'plain@example.com', command: 'MAIL FROM', role: 'sender' },
    // as do UTF-8 recipients when there is nobody else
    { from: 'sender@petrel.test', to: 'josé@example.com', command: 'RCPT TO', role: 'recipient' },
  ])('not offered: $role josé fails the whole message at $command, nothing sent', (c) => {
    const plan = planAttempt(build(c.from, [c.to]), false);
    expect(plan.envelope.to).toEqual([]);
    expect(plan.fatal).toEqual(
      expect.objectContaining({
        kind: 'hard_fail',
        command: c.command,
        detail: reason(c.role, 'josé@example.com'),
      }),
    );
  });

  it('UTF-8 only in Reply-To: the ASCII form goes, offered or not', () => {
    const msg = build('sender@petrel.test', ['plain@example.com'], ['josé@example.com']);
    for (const offered of [true, false]) {
      const plan = planAttempt(msg, offered);
      expect(plan.raw).toBe(msg.asciiRaw);
      expect(plan.envelope).toEqual({ from: 'sender@petrel.test', to: ['plain@example.com'] });
    }
  });

  it('hands out a fresh envelope each time (nodemailer adds fields to it)', () => {
    const msg = build('sender@petrel.test', ['plain@example.com']);
    const a = planAttempt(msg, true);
    a.envelope.to.push('extra@example.com');
    expect(planAttempt(msg, true).envelope.to).toEqual(['plain@example.com']);
    expect(msg.envelope.to).toEqual(['plain@example.com']);
  });
});
