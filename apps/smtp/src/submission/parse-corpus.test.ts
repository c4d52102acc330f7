/**
 * The submission parser is postal-mime with one patch (patches/postal-mime+4.0.0.patch, applied
 * by patch-package at install), of two changes. Its decoders join a part's lines with a plain copy
 * instead of `new Blob(lines).arrayBuffer()`, which cost most of a parse: a message must parse
 * exactly as before. And windows-1252 text (every label WHATWG maps to it: iso-8859-1, latin1,
 * us-ascii...) and iso-8859-16 text decode through iconv-lite, as Node 20's TextDecoder decodes
 * bytes 0x80-0x9F of windows-1252 as C1 controls and refuses iso-8859-16. corpus/*.eml are the
 * bench's standard email, what the e2e submission sends, and the cases a decoder can get wrong
 * (binary and inline attachments, quoted-printable soft breaks, base64 bodies, non-UTF-8 charsets
 * in bodies and encoded words); corpus/parsed.json is what the unpatched postal-mime 4.0.0, and
 * parseSubmission over it, gave for each, but for the text of windows1252-qp-html.eml, which the
 * unpatched parse gave as C1 controls (U+0093 U+0094 U+0080 U+0096 for “ ” € –).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
import { parseInboundMessage } from '@petrel/core';
import { parseSubmission } from './parse.js';

const CORPUS = fileURLToPath(new URL('./corpus/', import.meta.url));
const golden = JSON.parse(readFileSync(join(CORPUS, 'parsed.json'), 'utf8')) as Record<
  string,
  { parsed: unknown; submission: unknown }
>;
const messages = readdirSync(CORPUS).filter((f) => f.endsWith('.eml'));

/** A module of the installed postal-mime's ESM build (its package exports only the entry). */
async function postalMimeModule<T>(file: string): Promise<T> {
  const entry = createRequire(import.meta.url).resolve('postal-mime'); // dist/cjs/postal-mime.js
  return (await import(pathToFileURL(join(dirname(entry), '../esm', file)).href)) as T;
}

describe('submission parsing (postal-mime, patched)', () => {
  it('the installed postal-mime is the patched one: its decoders build no Blob', async () => {
    const { concatChunks } = await postalMimeModule<{ concatChunks?: unknown }>('decode-strings.js');
    expect(typeof concatChunks).toBe('function');
    const entry = createRequire(import.meta.url).resolve('postal-mime');
    for (const decoder of ['pass-through-decoder.js', 'base64-decoder.js', 'qp-decoder.js']) {
      for (const build of ['esm', 'cjs']) {
        const source = readFileSync(join(dirname(entry), '..', build, decoder), 'utf8');
        expect(source, `${build}/${decoder}`).not.toContain('new Blob');
      }
    }
  });

  it('the decoders join any chunks to the bytes a Blob of them holds', async () => {
    const { concatChunks } = await postalMimeModule<{
      concatChunks: (chunks: (string | Uint8Array | ArrayBuffer)[]) => ArrayBuffer;
    }>('decode-strings.js');
    // what the decoders hold: lines (views into the message's buffer), '\n' strings, decoded
    // base64 units (ArrayBuffers); strings with any code point, lone surrogates included
    const chunk = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) }),
      fc
        .tuple(fc.uint8Array({ maxLength: 64 }), fc.nat(8), fc.nat(8))
        .map(([bytes, a, b]) => bytes.subarray(Math.min(a, bytes.length), Math.max(a, bytes.length - b))),
      fc.uint8Array({ maxLength: 64 }).map((b) => b.slice().buffer),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { maxLength: 40 }), async (chunks) => {
        const expected = new Uint8Array(await new Blob(chunks).arrayBuffer());
        expect(new Uint8Array(concatChunks(chunks))).toEqual(expected);
      }),
      { numRuns: 500 },
    );
  });

  it('has the whole corpus recorded', () => {
    expect(messages.sort()).toEqual(Object.keys(golden).sort());
    expect(messages.length).toBeGreaterThanOrEqual(9);
  });

  for (const name of messages) {
    it(`${name} parses as the unpatched postal-mime 4.0.0 parsed it`, async () => {
      const raw = readFileSync(join(CORPUS, name));
      const parsed = await PostalMime.parse(raw, { attachmentEncoding: 'base64' });
      expect(JSON.parse(JSON.stringify(parsed))).toEqual(golden[name]!.parsed);
      const rcptTo = [...(parsed.to ?? []), ...(parsed.cc ?? [])].flatMap((a) =>
        'address' in a && a.address ? [a.address] : [],
      );
      expect(await parseSubmission(raw, rcptTo)).toEqual(golden[name]!.submission);
    });
  }
});

/** A message as its bytes: `\xNN` escapes of the source are the 8-bit bytes of the wire. */
const wire = (lines: string[]): Buffer => Buffer.from(lines.join('\r\n'), 'latin1');

describe('windows-1252 and the labels WHATWG reads as windows-1252 (patched: iconv-lite)', () => {
  // Shaped as Outlook 16 writes a message in a Western European locale: windows-1252 encoded words
  // in From and Subject, multipart/alternative with quoted-printable text and html.
  const outlook = wire([
    'From: =?windows-1252?Q?Ren=E9_=93Ray=94_M=FCller?= <rene@acme.test>',
    'To: orders@rcpt.test',
    'Subject: =?windows-1252?Q?Invoice_=96_=8010_=85_Caf=E9=99?=',
    'Date: Tue, 3 Mar 2026 09:15:02 +0100',
    'Message-ID: <000101da6d1e$5b2c1a40$11844ec0$@acme.test>',
    'MIME-Version: 1.0',
    'Content-Type: multipart/alternative;',
    '\tboundary="----=_NextPart_000_0002_01DA6D26.BCF08240"',
    'X-Mailer: Microsoft Outlook 16.0',
    'Thread-Index: AdptHlr3Qk1c0h2XTJ2a8Q1lq0V3Ag==',
    'Content-Language: de',
    '',
    'This is a multipart message in MIME format.',
    '',
    '------=_NextPart_000_0002_01DA6D26.BCF08240',
    'Content-Type: text/plain;',
    '\tcharset="windows-1252"',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Hi =93team=94 =96 the total is =8012,50 =85 that=92s all=99.',
    'Gr=FC=DFe, Ren=E9',
    '',
    '------=_NextPart_000_0002_01DA6D26.BCF08240',
    'Content-Type: text/html;',
    '\tcharset="windows-1252"',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    '<html><body><p>Hi =93team=94 =96 the total is =8012,50 =85 =',
    'that=92s all=99.</p></body></html>',
    '',
    '------=_NextPart_000_0002_01DA6D26.BCF08240--',
    '',
  ]);
  // Outlook ends each part with an empty line before the boundary: content, so one '\n' stays
  // after parseSubmission takes the line break that belongs to the boundary
  const outlookText = 'Hi “team” – the total is €12,50 … that’s all™.\nGrüße, René\n';
  const outlookHtml = '<html><body><p>Hi “team” – the total is €12,50 … that’s all™.</p></body></html>\n';

  // Labelled iso-8859-1 but written with windows-1252's 0x80-0x9F (what WHATWG's label table
  // exists for): a base64 encoded-word subject and an 8-bit body.
  const latin1Label = wire([
    'From: =?ISO-8859-1?Q?Fran=E7oise_d=92Arc?= <francoise@acme.test>',
    'To: g@rcpt.test',
    `Subject: =?ISO-8859-1?B?${Buffer.from('Prix : 20 \x80 \x96 r\xe9serv\xe9', 'latin1').toString('base64')}?=`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=ISO-8859-1',
    'Content-Transfer-Encoding: 8bit',
    '',
    'Voil\xe0 \x96 \x93d\xe9j\xe0 vu\x94 \x85 co\xfbt 5 \x80.',
    'Fran\xe7oise',
    '',
  ]);

  it('an Outlook message in windows-1252 (quoted-printable): From name, Subject, text and html', async () => {
    const parsed = await PostalMime.parse(outlook);
    expect(parsed.from).toEqual({ name: 'René “Ray” Müller', address: 'rene@acme.test' });
    expect(parsed.subject).toBe('Invoice – €10 … Café™');
    expect(parsed.text).toBe(`${outlookText}\n`);
    expect(parsed.html).toBe(`${outlookHtml}\n`);

    const submitted = await parseSubmission(outlook, ['orders@rcpt.test']);
    expect(submitted).toMatchObject({
      body: {
        from: 'René “Ray” Müller <rene@acme.test>',
        subject: 'Invoice – €10 … Café™',
        text: outlookText,
        html: outlookHtml,
      },
    });

    const inbound = await parseInboundMessage(outlook);
    expect(inbound).toMatchObject({
      from: 'rene@acme.test',
      subject: 'Invoice – €10 … Café™',
      text: `${outlookText}\n`,
      html: `${outlookHtml}\n`,
    });
  });

  it('a message labelled iso-8859-1 (8-bit body, base64 encoded word) reads as windows-1252', async () => {
    const parsed = await PostalMime.parse(latin1Label);
    expect(parsed.from).toEqual({ name: 'Françoise d’Arc', address: 'francoise@acme.test' });
    expect(parsed.subject).toBe('Prix : 20 € – réservé');
    expect(parsed.text).toBe('Voilà – “déjà vu” … coût 5 €.\nFrançoise\n');

    const submitted = await parseSubmission(latin1Label, ['g@rcpt.test']);
    expect(submitted).toMatchObject({
      body: {
        from: 'Françoise d’Arc <francoise@acme.test>',
        subject: 'Prix : 20 € – réservé',
        text: 'Voilà – “déjà vu” … coût 5 €.\nFrançoise',
      },
    });
  });

  // Every spelling of the windows-1252 labels of https://encoding.spec.whatwg.org/#names-and-labels
  // a mail client writes, in an encoded word and as a body's charset
  for (const label of [
    'windows-1252',
    'Windows-1252',
    'cp1252',
    'x-cp1252',
    'iso-8859-1',
    'ISO_8859-1:1987',
    'iso8859-1',
    'latin1',
    'l1',
    'us-ascii',
    'ascii',
    'ANSI_X3.4-1968',
  ]) {
    it(`charset ${label}: bytes 0x93 0x80 0x94 are “€”`, async () => {
      const parsed = await PostalMime.parse(
        wire([
          'From: a@acme.test',
          `Subject: =?${label}?Q?=93=80=94?=`,
          `Content-Type: text/plain; charset="${label}"`,
          'Content-Transfer-Encoding: 8bit',
          '',
          '\x93\x80\x94',
        ]),
      );
      expect(parsed.subject).toBe('“€”');
      expect(parsed.text).toBe('“€”\n'); // postal-mime ends a text with a line break
    });
  }

  it('an unknown charset falls back to windows-1252, also patched', async () => {
    const parsed = await PostalMime.parse(
      wire(['From: a@acme.test', 'Subject: =?x-unknown-8bit?Q?=93ok=94?=', '', 'x']),
    );
    expect(parsed.subject).toBe('“ok”');
  });

  it('iso-8859-16, which Node 20 refuses, decodes (Romanian comma-below letters)', async () => {
    const parsed = await PostalMime.parse(
      wire([
        'From: =?iso-8859-16?Q?=AAtefan?= <s@acme.test>',
        'Subject: =?iso-8859-16?Q?Bucure=BAti,_=DEara_=A4?=',
        'Content-Type: text/plain; charset=iso-8859-16',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        '=AAi =BAi =DE =FE',
      ]),
    );
    expect(parsed.from).toEqual({ name: 'Ștefan', address: 's@acme.test' });
    expect(parsed.subject).toBe('București, Țara €');
    expect(parsed.text).toBe('Și și Ț ț\n');
  });
});
