import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { buildMessage, type MessageInput } from './build-message.js';
import { MessageBuildError } from './build-error.js';

const base: MessageInput = {
  emailId: '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b',
  messageIdDomain: 'mail.example.com',
  date: new Date('2026-11-21T09:12:00Z'),
  from: 'Acme <sender@example.com>',
  to: ['to@example.com'],
  cc: [],
  bcc: [],
  reply_to: [],
  subject: 'Hello',
  headers: {},
  attachments: [],
};

const build = (over: Partial<MessageInput>) => buildMessage({ ...base, ...over });
const parse = (raw: Buffer) => PostalMime.parse(raw);
/** postal-mime gives text with LF line breaks and one trailing LF added. */
const asParsed = (text: string) => `${text.replace(/\r\n|\r/g, '\n')}\n`;

/** The top-level header block, unfolded into `name: value` strings. */
function headerBlock(raw: Buffer): string {
  const s = raw.toString('utf8');
  return s.slice(0, s.indexOf('\r\n\r\n'));
}
function headerLines(raw: Buffer): string[] {
  return headerBlock(raw).split('\r\n');
}
function allLines(raw: Buffer): string[] {
  return raw.toString('utf8').split('\r\n');
}
/** Every line ends with CRLF: no bare CR or LF anywhere in the message. */
function assertCrlfOnly(raw: Buffer): void {
  const s = raw.toString('latin1');
  expect(s.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
}

describe('buildMessage: headers', () => {
  it('writes Message-ID, Date, MIME-Version, From, To, Cc, Reply-To and Subject', async () => {
    const m = build({
      cc: ['Carol <cc@example.com>'],
      reply_to: ['replies@example.com'],
      text: 'hi',
    });
    const head = headerBlock(m.raw);
    expect(m.messageId).toBe('<0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@mail.example.com>');
    expect(head).toContain('Message-ID: <0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@mail.example.com>\r\n');
    expect(head).toContain('Date: Sat, 21 Nov 2026 09:12:00 +0000\r\n');
    expect(head).toContain('MIME-Version: 1.0\r\n');
    expect(head).toContain('From: Acme <sender@example.com>\r\n');
    const p = await parse(m.raw);
    expect(p.from).toEqual({ name: 'Acme', address: 'sender@example.com' });
    expect(p.to).toEqual([{ name: '', address: 'to@example.com' }]);
    expect(p.cc).toEqual([{ name: 'Carol', address: 'cc@example.com' }]);
    expect(p.replyTo).toEqual([{ name: '', address: 'replies@example.com' }]);
    expect(p.subject).toBe('Hello');
    expect(p.messageId).toBe(m.messageId);
    expect(new Date(p.date!).toISOString()).toBe('2026-11-21T09:12:00.000Z');
    assertCrlfOnly(m.raw);
  });

  it('gives a retried build the same Message-ID (and fresh boundaries)', () => {
    const a = build({ text: 'x', html: '<p>x</p>' });
    const b = build({ text: 'x', html: '<p>x</p>' });
    expect(a.messageId).toBe(b.messageId);
    expect(a.raw.equals(b.raw)).toBe(false);
  });

  it('keeps Bcc out of the headers and puts every recipient in the envelope once', async () => {
    const m = build({
      to: ['One <one@example.com>', 'two@example.com'],
      cc: ['TWO@example.com', 'three@example.com'],
      bcc: ['Secret <hidden@example.com>', 'one@example.com'],
      text: 'x',
    });
    expect(m.envelope).toEqual({
      from: 'sender@example.com',
      to: ['one@example.com', 'two@example.com', 'three@example.com', 'hidden@example.com'],
    });
    expect(m.raw.toString()).not.toMatch(/hidden@example\.com|^bcc:/im);
    const p = await parse(m.raw);
    expect(p.bcc).toBeUndefined();
  });

  it('quotes display names with specials and encodes non-ASCII ones', async () => {
    const m = build({
      from: '"Doe, John \\"JD\\"" <john@example.com>',
      to: ['Zoë Ünïcødé 🎉 <z@example.com>', '"=?UTF-8?Q?fake?=" <f@example.com>'],
      text: 'x',
    });
    const head = headerBlock(m.raw);
    expect(head).toContain('From: "Doe, John \\"JD\\"" <john@example.com>');
    expect(head).toMatch(/To: =\?UTF-8\?[BQ]\?/);
    const p = await parse(m.raw);
    expect(p.from?.name).toBe('Doe, John "JD"');
    expect(p.to?.map((a) => a.name)).toEqual(['Zoë Ünïcødé 🎉', '=?UTF-8?Q?fake?=']);
  });

  it('converts an internationalised domain to punycode in header and envelope', () => {
    const m = build({ to: ['Ö <user@bücher.example>'], text: 'x' });
    expect(m.envelope.to).toEqual(['user@xn--bcher-kva.example']);
    expect(headerBlock(m.raw)).toContain('<user@xn--bcher-kva.example>');
  });

  it('writes IDN domains as A-labels in From, To, Cc, Reply-To and the envelope; all ASCII', async () => {
    const m = build({
      from: 'Büro <sender@bücher.example>',
      to: ['user@bücher.example', 'Name <other@MÜNCHEN.example>'],
      cc: ['"Doe, J" <cc@例え.テスト>'],
      bcc: ['hidden@bücher.example'],
      reply_to: ['Reply <r@bücher.example>'],
      text: 'x',
    });
    expect(m.envelope).toEqual({
      from: 'sender@xn--bcher-kva.example',
      to: [
        'user@xn--bcher-kva.example',
        'other@xn--mnchen-3ya.example',
        'cc@xn--r8jz45g.xn--zckzah',
        'hidden@xn--bcher-kva.example',
      ],
    });
    const head = headerBlock(m.raw);
    expect(head).toContain('\r\nTo: user@xn--bcher-kva.example, Name <other@xn--mnchen-3ya.example>\r\n');
    expect(head).toContain('\r\nCc: "Doe, J" <cc@xn--r8jz45g.xn--zckzah>\r\n');
    expect(head).toContain('\r\nReply-To: Reply <r@xn--bcher-kva.example>\r\n');
    expect(head).toMatch(/^From: =\?UTF-8\?[BQ]\?.+\?= <sender@xn--bcher-kva\.example>\r\n/);
    // nothing needs SMTPUTF8: the message is ASCII and has no second form
    expect(m.raw.every((b) => b < 0x80)).toBe(true);
    expect(m.asciiRaw).toBeUndefined();
    const p = await parse(m.raw);
    expect(p.from).toEqual({ name: 'Büro', address: 'sender@xn--bcher-kva.example' });
  });

  it('keeps a UTF-8 local part as UTF-8 (RFC 6532) and adds an ASCII form with it downgraded', async () => {
    const m = build({
      to: ['José <josé@example.com>', 'plain@example.com'],
      cc: ['ü@bücher.example'],
      text: 'x',
    });
    expect(m.envelope.to).toEqual(['josé@example.com', 'plain@example.com', 'ü@xn--bcher-kva.example']);
    const head = headerBlock(m.raw);
    expect(head).toMatch(/\r\nTo: =\?UTF-8\?[BQ]\?\S+\?= <josé@example\.com>, plain@example\.com\r\n/);
    expect(head).toContain('Cc: ü@xn--bcher-kva.example\r\n');
    const p = await parse(m.raw);
    expect(p.to).toEqual([
      { name: 'José', address: 'josé@example.com' },
      { name: '', address: 'plain@example.com' },
    ]);

    const ascii = m.asciiRaw!;
    expect(ascii).toBeDefined();
    expect(ascii.every((b) => b < 0x80)).toBe(true);
    const asciiHead = headerBlock(ascii);
    expect(asciiHead).toMatch(/\r\nTo: =\?UTF-8\?[BQ]\?[^\r\n]*\?= :;, plain@example\.com\r\n/);
    expect(asciiHead).toMatch(/\r\nCc: =\?UTF-8\?[BQ]\?[^\r\n]*\?= :;\r\n/);
    const q = await parse(ascii);
    // each UTF-8 mailbox is an empty group named after it; the ASCII one is untouched
    expect(q.to).toEqual([
      { name: 'José <josé@example.com>', group: [] },
      { name: '', address: 'plain@example.com' },
    ]);
    expect(q.cc).toEqual([{ name: 'ü@xn--bcher-kva.example', group: [] }]);
    // only the address headers differ
    const body = (raw: Buffer) => raw.toString('utf8').split(/\r\nSubject: /)[1];
    expect(body(ascii)).toBe(body(m.raw));
    expect(q.messageId).toBe(m.messageId);
  });

  it('writes an internationalised Message-ID domain as A-labels, and still refuses garbage', () => {
    const m = build({ messageIdDomain: 'bücher.example', text: 'x' });
    expect(m.messageId).toBe('<0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b@xn--bcher-kva.example>');
    expect(headerBlock(m.raw)).toContain(`\r\nMessage-ID: ${m.messageId}\r\n`);
    for (const messageIdDomain of ['bad domain', 'a\u0000b', 'ü<b>.example', '']) {
      expect(() => build({ messageIdDomain, text: 'x' }), messageIdDomain).toThrow(MessageBuildError);
    }
  });

  it('converts only a non-ASCII domain: an ASCII one stays as written, a bad IDN is refused', () => {
    expect(build({ to: ['josé@Example.COM', 'x@xn--bcher-kva.example'], text: 'x' }).envelope.to).toEqual([
      'josé@Example.COM',
      'x@xn--bcher-kva.example',
    ]);
    // validation is the strict IDNA gate; domainToASCII still refuses what cannot be encoded
    expect(() => build({ to: ['user@xn--ü.example'], text: 'x' })).toThrow(MessageBuildError);
  });

  it('adds the ASCII form for a UTF-8 From or Reply-To, but not for a UTF-8 Bcc', () => {
    expect(build({ from: 'josé@example.com', text: 'x' }).asciiRaw).toBeDefined();
    expect(build({ reply_to: ['josé@example.com'], text: 'x' }).asciiRaw).toBeDefined();
    const bcc = build({ bcc: ['josé@example.com'], text: 'x' });
    expect(bcc.asciiRaw).toBeUndefined();
    expect(bcc.envelope.to).toContain('josé@example.com');
    expect(bcc.raw.every((b) => b < 0x80)).toBe(true);
  });

  it('keeps downgraded groups within 78 columns', async () => {
    const local = 'ü'.repeat(60);
    const m = build({
      to: [`Very Long Display Name Here <${local}@example.com>`, 'x@example.com'],
      text: 'x',
    });
    for (const line of headerLines(m.asciiRaw!)) expect(line.length).toBeLessThanOrEqual(78);
    const q = await parse(m.asciiRaw!);
    expect(q.to?.[0]).toEqual({ name: `Very Long Display Name Here <${local}@example.com>`, group: [] });
  });

  it('folds a long recipient list at 78 columns', async () => {
    const to = Array.from({ length: 50 }, (_, i) => `Recipient Number ${i} <recipient.${i}@example.com>`);
    const m = build({ to, text: 'x' });
    for (const line of headerLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
    const p = await parse(m.raw);
    expect(p.to?.map((a) => a.address)).toEqual(to.map((_, i) => `recipient.${i}@example.com`));
  });

  it('writes custom headers, folding long values and encoding non-ASCII ones', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
    const m = build({
      text: 'x',
      headers: {
        'X-Entity-Ref-ID': 'abc-123',
        'List-Unsubscribe': '<https://example.com/unsubscribe?token=abc>, <mailto:u@example.com>',
        'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
        'X-Long': long,
        'X-Unicode': 'naïve café ✓',
      },
    });
    for (const line of headerLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
    const p = await parse(m.raw);
    const get = (k: string) => p.headers.find((h) => h.key === k)?.value;
    expect(get('x-entity-ref-id')).toBe('abc-123');
    expect(get('list-unsubscribe')).toBe(
      '<https://example.com/unsubscribe?token=abc>, <mailto:u@example.com>',
    );
    expect(get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
    expect(get('x-long')).toBe(long);
    expect(headerBlock(m.raw)).toMatch(/X-Unicode: =\?UTF-8\?/);
  });

  it('folds a long ASCII subject at spaces and encodes one that cannot fold', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const unbroken = 'x'.repeat(200);
    for (const subject of [words, unbroken]) {
      const m = build({ subject, text: 'x' });
      for (const line of headerLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
      expect((await parse(m.raw)).subject).toBe(subject);
    }
    expect(headerBlock(build({ subject: words, text: 'x' }).raw)).toContain('Subject: w0 w1');
  });
});

describe('buildMessage: refuses unsafe input (defence in depth)', () => {
  const cases: [string, Partial<MessageInput>][] = [
    ['subject with CRLF', { subject: 'hi\r\nBcc: evil@evil.test' }],
    ['subject with LF', { subject: 'hi\nX: y' }],
    ['subject with NUL', { subject: 'hi\0' }],
    ['from name with CRLF', { from: 'Evil\r\nBcc: x@evil.test <a@example.com>' }],
    ['address list in one entry', { to: ['a@good.test,b@evil.test'] }],
    ['address with brackets', { to: ['Name <a@good.test>, <b@evil.test>'] }],
    ['reply_to with LF', { reply_to: ['a@example.com\n'] }],
    ['custom header value with CR', { headers: { 'X-A': 'v\rBcc: evil@evil.test' } }],
    ['custom header name with colon', { headers: { 'X-A: b': 'v' } }],
    ['custom header name with space', { headers: { 'X A': 'v' } }],
    ['owned header Bcc', { headers: { bcc: 'evil@evil.test' } }],
    ['owned header Message-ID', { headers: { 'Message-Id': '<x@y>' } }],
    ['attachment filename with CRLF', { attachments: [{ content: 'AA==', filename: 'a\r\nb.txt' }] }],
    [
      'attachment content_type with LF',
      { attachments: [{ content: 'AA==', content_type: 'text/plain\nX: y' }] },
    ],
    ['attachment content_id with CR', { attachments: [{ content: 'AA==', content_id: 'a\rb' }] }],
    ['unfetched path attachment', { attachments: [{ content: '', path: 'https://example.com/a.pdf' }] }],
    ['message id with @', { emailId: 'a@b' }],
    ['invalid date', { date: new Date('nope') }],
  ];
  it.each(cases)('%s', (_, over) => {
    expect(() => build({ text: 'x', ...over })).toThrow(MessageBuildError);
  });
});

describe("buildMessage: a Return-Path header from before it became Petrel's own", () => {
  it('is dropped, not relayed and not a build failure', () => {
    const m = build({ text: 'x', headers: { 'Return-Path': '<evil@evil.test>', 'X-Kept': 'yes' } });
    expect(headerBlock(m.raw)).not.toMatch(/return-path/i);
    expect(headerBlock(m.raw)).toContain('X-Kept: yes');
  });
});

describe('buildMessage: body structure', () => {
  it('text only → a single text/plain part', async () => {
    const m = build({ text: 'Just text' });
    expect(headerBlock(m.raw)).toContain('Content-Type: text/plain; charset=utf-8');
    expect(headerBlock(m.raw)).toContain('Content-Transfer-Encoding: 7bit');
    const p = await parse(m.raw);
    expect(p.text).toBe(asParsed('Just text'));
    expect(p.html).toBeUndefined();
  });

  it('text and html → multipart/alternative, text first', async () => {
    const m = build({ text: 'Plain', html: '<p>Rich</p>' });
    expect(headerBlock(m.raw)).toContain('Content-Type: multipart/alternative;');
    const s = m.raw.toString();
    expect(s.indexOf('text/plain')).toBeLessThan(s.indexOf('text/html'));
    const p = await parse(m.raw);
    expect(p.text).toBe(asParsed('Plain'));
    expect(p.html).toBe(asParsed('<p>Rich</p>'));
  });

  it('html without text → text generated from the html', async () => {
    const m = build({
      html: '<h1>Welcome</h1><p>Hello <a href="https://example.com">there</a> <img src="cid:x" alt="logo"></p>',
    });
    const p = await parse(m.raw);
    expect(p.text).toContain('WELCOME');
    expect(p.text).toContain('Hello there [https://example.com]');
    expect(p.text).not.toContain('cid:');
    expect(headerBlock(m.raw)).toContain('multipart/alternative');
  });

  it("text: '' → html only, no text part", async () => {
    const m = build({ html: '<p>Only html</p>', text: '' });
    expect(headerBlock(m.raw)).toContain('Content-Type: text/html; charset=utf-8');
    expect(m.raw.toString()).not.toContain('text/plain');
    const p = await parse(m.raw);
    expect(p.html).toBe(asParsed('<p>Only html</p>'));
  });

  it('neither text nor html → an empty text/plain body', async () => {
    const p = await parse(build({}).raw);
    expect(p.text ?? '').toMatch(/^\n?$/);
  });

  it('attachments → multipart/mixed with the content intact, base64 wrapped at 76', async () => {
    const bin = randomBytes(5000);
    const m = build({
      text: 'see attached',
      html: '<p>see attached</p>',
      attachments: [
        { content: bin.toString('base64'), filename: 'data.bin' },
        { content: Buffer.from('a,b\n1,2\n').toString('base64'), filename: 'report.csv' },
        {
          content: Buffer.from('%PDF').toString('base64'),
          filename: 'invoice.pdf',
          content_type: 'application/pdf',
        },
        { content: Buffer.from('no name').toString('base64') },
      ],
    });
    expect(headerBlock(m.raw)).toContain('Content-Type: multipart/mixed;');
    for (const line of allLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
    const p = await parse(m.raw);
    expect(p.text).toBe(asParsed('see attached'));
    expect(p.attachments).toHaveLength(4);
    const [a0, a1, a2, a3] = p.attachments;
    expect(Buffer.from(a0!.content as ArrayBuffer).equals(bin)).toBe(true);
    expect(a0!.filename).toBe('data.bin');
    expect(a0!.mimeType).toBe('application/octet-stream');
    expect(a0!.disposition).toBe('attachment');
    expect(a1!.mimeType).toBe('text/csv');
    expect(a2!.mimeType).toBe('application/pdf');
    expect(a3!.filename).toBeNull();
    expect(Buffer.from(a3!.content as ArrayBuffer).toString()).toBe('no name');
  });

  it('accepts non-canonical base64 (line breaks, URL-safe, unpadded)', async () => {
    const bin = randomBytes(300);
    const b64 = bin.toString('base64');
    const variants = [b64.replace(/(.{60})/g, '$1\n'), bin.toString('base64url'), b64.replace(/=+$/, '')];
    for (const content of variants) {
      const p = await parse(build({ text: 'x', attachments: [{ content, filename: 'a.bin' }] }).raw);
      expect(Buffer.from(p.attachments[0]!.content as ArrayBuffer).equals(bin)).toBe(true);
    }
  });

  it('inline attachments → multipart/related around the html, with Content-ID', async () => {
    const png = randomBytes(64);
    const m = build({
      html: '<p>Logo: <img src="cid:logo@acme"></p>',
      text: 'Logo',
      attachments: [
        { content: png.toString('base64'), filename: 'logo.png', content_id: 'logo@acme' },
        { content: Buffer.from('x').toString('base64'), filename: 'terms.txt' },
      ],
    });
    const s = m.raw.toString();
    expect(headerBlock(m.raw)).toContain('multipart/mixed');
    expect(s).toContain('Content-Type: multipart/alternative;');
    expect(s).toContain('Content-Type: multipart/related;');
    expect(s).toContain('Content-ID: <logo@acme>');
    // related sits inside alternative, after the text part
    expect(s.indexOf('multipart/alternative')).toBeLessThan(s.indexOf('multipart/related'));
    const p = await parse(m.raw);
    const logo = p.attachments.find((a) => a.filename === 'logo.png')!;
    expect(logo.contentId).toBe('<logo@acme>');
    expect(logo.disposition).toBe('inline');
    expect(logo.related).toBe(true);
    expect(Buffer.from(logo.content as ArrayBuffer).equals(png)).toBe(true);
    expect(p.attachments.find((a) => a.filename === 'terms.txt')?.disposition).toBe('attachment');
  });

  it('encodes non-ASCII and long filenames with RFC 2231', async () => {
    const names = [
      'résumé.pdf',
      '发票 2026 年 11 月.pdf',
      `${'very-long-name-'.repeat(8)}.txt`,
      'a "quoted" name.txt',
      'emoji 🎉.txt',
    ];
    const m = build({
      text: 'x',
      attachments: names.map((filename) => ({ content: 'AA==', filename })),
    });
    for (const line of allLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
    expect(m.raw.toString()).toContain("filename*=utf-8''r%C3%A9sum%C3%A9.pdf");
    const p = await parse(m.raw);
    expect(p.attachments.map((a) => a.filename)).toEqual(names);
  });

  it('uses 7bit for short-line ASCII and quoted-printable otherwise', () => {
    const seven = build({ text: 'short ascii\nlines only' }).raw.toString();
    expect(seven).toContain('Content-Transfer-Encoding: 7bit');
    expect(seven).toContain('short ascii\r\nlines only');
    const longLine = build({ text: 'x'.repeat(200) }).raw.toString();
    expect(longLine).toContain('Content-Transfer-Encoding: quoted-printable');
    const unicode = build({ text: 'grüße' }).raw.toString();
    expect(unicode).toContain('Content-Transfer-Encoding: quoted-printable');
    expect(unicode).toContain('gr=C3=BC=C3=9Fe');
  });

  it('round-trips text bodies through quoted-printable (lines ≤ 76)', async () => {
    const bodies = [
      `${'a'.repeat(75)}=${'b'.repeat(80)}`,
      'trailing space \nand tab\t\nend ',
      'mixed\r\nline\rbreaks\n',
      '€'.repeat(100),
      `${'x'.repeat(74)}€€€`,
      '.\n..leading dots\nFrom here',
    ];
    for (const text of bodies) {
      const m = build({ text });
      const lines = allLines(m.raw);
      const start = lines.indexOf('') + 1;
      for (const line of lines.slice(start)) expect(line.length).toBeLessThanOrEqual(76);
      expect((await parse(m.raw)).text).toBe(asParsed(text));
    }
  });

  it('never lets a 7bit body contain a boundary', async () => {
    const text = '--=_petrel_ fake boundary line\n--=_petrel_0190--\n';
    const p = await parse(build({ text, html: '<p>x</p>' }).raw);
    expect(p.text).toBe(asParsed(text));
    expect(p.html).toBe(asParsed('<p>x</p>'));
  });
});

describe('buildMessage: properties', () => {
  /** Well-formed (no lone surrogates) and free of what validation refuses in headers. */
  const headerText = (maxLength: number) =>
    fc
      .oneof(
        fc.string({ unit: 'binary', maxLength }),
        fc.string({ unit: 'grapheme', maxLength }),
        fc
          .array(
            fc.constantFrom(
              'hello',
              'wörld',
              '🎉',
              '👩‍👩‍👧',
              ' ',
              '  ',
              'é',
              '"',
              '=?',
              '日本語',
              'a'.repeat(90),
            ),
            {
              maxLength: 30,
            },
          )
          .map((parts) => parts.join('')),
      )
      .filter((s) => !/[\r\n\0]/.test(s) && Buffer.from(s, 'utf8').toString('utf8') === s);

  it('subjects round-trip exactly, header lines stay ≤ 78 and no line exceeds 998', async () => {
    await fc.assert(
      fc.asyncProperty(headerText(300), async (subject) => {
        const m = build({ subject, text: 'x' });
        for (const line of headerLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
        for (const line of allLines(m.raw)) expect(line.length).toBeLessThanOrEqual(998);
        // postal-mime reports an empty Subject as absent
        expect((await parse(m.raw)).subject ?? '').toBe(subject);
      }),
      { numRuns: 400 },
    );
  });

  it('display names round-trip exactly in From, To and Reply-To', async () => {
    const name = headerText(120).filter((s) => s.trim() !== '' && s === s.trim());
    await fc.assert(
      fc.asyncProperty(name, name, async (fromName, toName) => {
        const quote = (s: string) => `"${s.replace(/[\\"]/g, '\\$&')}"`;
        const m = build({
          from: `${quote(fromName)} <from@example.com>`,
          to: [`${quote(toName)} <to@example.com>`, 'plain@example.com'],
          reply_to: [`${quote(toName)} <reply@example.com>`],
          text: 'x',
        });
        for (const line of headerLines(m.raw)) expect(line.length).toBeLessThanOrEqual(78);
        const p = await parse(m.raw);
        expect(p.from).toEqual({ name: fromName, address: 'from@example.com' });
        expect(p.to).toEqual([
          { name: toName, address: 'to@example.com' },
          { name: '', address: 'plain@example.com' },
        ]);
        expect(p.replyTo?.[0]?.name).toBe(toName);
        expect(m.envelope.to).toEqual(['to@example.com', 'plain@example.com']);
      }),
      { numRuns: 300 },
    );
  });

  it('text and html bodies round-trip, with no line over 998 (or 76 in quoted-printable)', async () => {
    const body = fc
      .string({ unit: 'binary', maxLength: 2000 })
      .filter((s) => Buffer.from(s, 'utf8').toString('utf8') === s);
    await fc.assert(
      fc.asyncProperty(body, body, async (text, html) => {
        fc.pre(text !== '' && html !== '');
        const m = build({ text, html });
        for (const line of allLines(m.raw)) expect(line.length).toBeLessThanOrEqual(998);
        assertCrlfOnly(m.raw);
        const p = await parse(m.raw);
        expect(p.text).toBe(asParsed(text));
        expect(p.html).toBe(asParsed(html));
      }),
      { numRuns: 200 },
    );
  });

  it('attachment filenames and bytes round-trip', async () => {
    const filename = headerText(150).filter((s) => s !== '' && s.trim() === s);
    await fc.assert(
      fc.asyncProperty(filename, fc.uint8Array({ maxLength: 400 }), async (name, bytes) => {
        const m = build({
          text: 'x',
          attachments: [{ content: Buffer.from(bytes).toString('base64'), filename: name }],
        });
        for (const line of allLines(m.raw)) expect(line.length).toBeLessThanOrEqual(998);
        const p = await parse(m.raw);
        expect(p.attachments[0]?.filename).toBe(name);
        expect(Buffer.from(p.attachments[0]!.content as ArrayBuffer).equals(Buffer.from(bytes))).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
