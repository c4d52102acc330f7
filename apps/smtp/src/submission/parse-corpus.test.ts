/**
 * The submission parser is postal-mime with one patch (patches/postal-mime+4.0.0.patch, applied
 * by patch-package at install): its decoders join a part's lines with a plain copy instead of
 * `new Blob(lines).arrayBuffer()`, which cost most of a parse. A message must parse exactly as
 * before. corpus/*.eml are the bench's standard email, what the e2e submission sends, and the
 * cases a decoder can get wrong (binary and inline attachments, quoted-printable soft breaks,
 * base64 bodies, non-UTF-8 charsets in bodies and encoded words); corpus/parsed.json is what the
 * unpatched postal-mime 4.0.0, and parseSubmission over it, gave for each.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import PostalMime from 'postal-mime';
import { describe, expect, it } from 'vitest';
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
