import { describe, expect, it } from 'vitest';
import type { EmailContent } from '@petrel/contracts';
import { mimeBuilder, mimeBuilderFor } from './mime-builder.js';

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

  it("Petrel's own headers replace a custom header of the same name, whatever its case", () => {
    const c = { ...content, headers: { 'list-unsubscribe': '<mailto:x@y>', 'X-Keep': '1' } };
    const r = mimeBuilder.build({
      ...input(['ada@example.test'], c),
      extraHeaders: {
        'List-Unsubscribe': '<https://p.test/unsubscribe/t>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
      },
    });
    const raw = r.ok ? r.message.raw.toString() : '';
    expect(raw).toContain('List-Unsubscribe: <https://p.test/unsubscribe/t>\r\n');
    expect(raw).toContain('List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n');
    expect(raw).toContain('X-Keep: 1\r\n');
    expect(raw).not.toContain('mailto:x@y');
    expect(r.ok && r.message.envelope.to).toEqual(['ada@example.test']);
  });

  it('the envelope holds only the recipients given (the headers are the content as it is)', () => {
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

describe('mimeBuilderFor (BOUNCE_DOMAIN)', () => {
  it('puts the VERP return path on the envelope, the From header unchanged', () => {
    const r = mimeBuilderFor('bounce.acme.test').build(input(['ada@example.test']));
    expect(r.ok && r.message.envelope).toEqual({
      from: 'bounces+0190a6b2-7c3d-7000-8000-000000000001@bounce.acme.test',
      to: ['ada@example.test'],
    });
    expect(r.ok && r.message.raw.toString()).toMatch(/^From: Acme <hello@acme\.test>\r$/m);
  });

  it('is the plain builder without a bounce domain, and keeps its refusals', () => {
    expect(mimeBuilderFor(undefined)).toBe(mimeBuilder);
    const r = mimeBuilderFor('bounce.acme.test').build(
      input(['ada@example.test'], { ...content, from: 'not an address' }),
    );
    expect(r.ok).toBe(false);
  });
});
