import { describe, expect, it } from 'vitest';
import type { EmailContent } from '@petrel/contracts';
import { mimeBuilder } from './mime-builder.js';

const content: EmailContent = {
  from: 'Acme <hello@acme.test>',
  to: ['Ada <ada@example.test>'],
  cc: ['bob@bücher.example'],
  bcc: ['Cy@Example.test'],
  reply_to: [],
  subject: 'Hi',
  html: '<p>Hi</p>',
  headers: {},
  tags: [],
  attachments: [],
};
const input = (recipients: string[], c: EmailContent = content) => ({
  emailId: '0190a6b2-7c3d-7000-8000-000000000001',
  content: c,
  recipients,
  messageIdDomain: 'acme.test',
  date: new Date('2026-01-02T03:04:05Z'),
});

describe('mimeBuilder', () => {
  it('builds with the mailer; all decided recipients on the envelope, in its spelling', () => {
    const r = mimeBuilder.build(input(['ada@example.test', 'bob@bücher.example', 'cy@example.test']));
    expect(r.ok && r.message.envelope).toEqual({
      from: 'hello@acme.test',
      to: ['ada@example.test', 'bob@xn--bcher-kva.example', 'Cy@Example.test'],
    });
    expect(r.ok && r.message.messageId).toBe('<0190a6b2-7c3d-7000-8000-000000000001@acme.test>');
  });

  it('a recipient decided against keeps its header but gets no RCPT TO', () => {
    const r = mimeBuilder.build(input(['ada@example.test', 'cy@example.test']));
    expect(r.ok && r.message.envelope.to).toEqual(['ada@example.test', 'Cy@Example.test']);
    expect(r.ok && r.message.raw.toString()).toContain('Cc: bob@xn--bcher-kva.example');
  });

  it('a UTF-8 local part stays on the envelope and the ASCII form for hops without SMTPUTF8 comes along', () => {
    const utf8 = { ...content, to: ['José <josé@example.test>'], cc: [], bcc: [] };
    const r = mimeBuilder.build(input(['josé@example.test'], utf8));
    expect(r.ok && r.message.envelope.to).toEqual(['josé@example.test']);
    expect(r.ok && r.message.asciiRaw).toBeInstanceOf(Buffer);
  });

  it('an unbuildable message is a result, not a throw', () => {
    const r = mimeBuilder.build(
      input(['ada@example.test'], { ...content, headers: { 'Message-ID': '<x@y>' } }),
    );
    expect(r).toEqual({ ok: false, reason: expect.stringContaining('Message-ID') });
  });
});
