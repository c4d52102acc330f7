import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeWords, foldAtSpaces, longestLine, mimeParam, unstructuredHeader } from './header-encoding.js';

/** Decodes one encoded word to its bytes. */
function wordBytes(word: string): Buffer {
  const m = /^=\?UTF-8\?([BQ])\?(.*)\?=$/.exec(word);
  if (!m) throw new Error(`not an encoded word: ${word}`);
  if (m[1] === 'B') return Buffer.from(m[2]!, 'base64');
  const bytes: number[] = [];
  const text = m[2]!;
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    if (c === '=') {
      bytes.push(parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c === '_' ? 0x20 : c.charCodeAt(0));
  }
  return Buffer.from(bytes);
}

const strict = new TextDecoder('utf-8', { fatal: true });
const wellFormed = (s: string) => Buffer.from(s, 'utf8').toString('utf8') === s;

describe('encodeWords', () => {
  it('splits only on character boundaries and keeps every word ≤ 75 characters', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 400 }).filter(wellFormed),
        fc.integer({ min: 24, max: 75 }),
        (value, first) => {
          const words = encodeWords(value, first);
          expect(words[0]!.length).toBeLessThanOrEqual(first);
          const parts = words.map((w) => {
            expect(w.length).toBeLessThanOrEqual(75);
            // each word must decode on its own: no split UTF-8 sequence or surrogate pair
            return strict.decode(wordBytes(w));
          });
          expect(parts.join('')).toBe(value);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('keeps an emoji surrogate pair and a ZWJ sequence intact across words', () => {
    const value = '👩‍👩‍👧'.repeat(20);
    const words = encodeWords(value, 40);
    expect(words.length).toBeGreaterThan(1);
    expect(words.map((w) => strict.decode(wordBytes(w))).join('')).toBe(value);
  });

  it('picks Q for mostly-ASCII text and B for mostly non-ASCII text', () => {
    expect(encodeWords('Hello wörld', 75)[0]).toBe('=?UTF-8?Q?Hello_w=C3=B6rld?=');
    expect(encodeWords('日本語のテキスト', 75)[0]).toMatch(/^=\?UTF-8\?B\?/);
  });
});

describe('foldAtSpaces', () => {
  it('unfolds back to the input and folds at spaces within 78 columns', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,20}$/), { maxLength: 60 }), (words) => {
        const line = `Subject: ${words.join(' ')}`;
        const folded = foldAtSpaces(line);
        expect(folded.replace(/\r\n/g, '')).toBe(line);
        expect(longestLine(folded)).toBeLessThanOrEqual(78);
      }),
    );
  });

  it('does not leave the field name alone on its line', () => {
    const folded = foldAtSpaces(`X: ${'a'.repeat(100)} b`);
    expect(folded.startsWith(`X: ${'a'.repeat(100)}\r\n b`)).toBe(true);
  });
});

describe('unstructuredHeader', () => {
  it('keeps short printable ASCII as it is', () => {
    expect(unstructuredHeader('Subject', 'Your receipt #42')).toBe('Subject: Your receipt #42');
  });
  it('encodes text that would otherwise be decoded or trimmed by a reader', () => {
    expect(unstructuredHeader('Subject', '=?UTF-8?B?SGk=?=')).toMatch(/^Subject: =\?UTF-8\?[BQ]\?/);
    expect(unstructuredHeader('Subject', ' padded ')).toMatch(/^Subject: =\?UTF-8\?Q\?_padded_\?=$/);
  });
  it('starts the encoded value on the next line after a very long field name', () => {
    const name = `X-${'N'.repeat(70)}`;
    const h = unstructuredHeader(name, 'é');
    expect(h).toBe(`${name}:\r\n =?UTF-8?B?w6k=?=`);
  });
  it('refuses CR, LF and NUL', () => {
    for (const v of ['a\rb', 'a\nb', 'a\0b'])
      expect(() => unstructuredHeader('X', v)).toThrow(/CR, LF or NUL/);
  });
});

describe('mimeParam', () => {
  it('quotes short ASCII, escaping quotes and backslashes', () => {
    expect(mimeParam('filename', 'a "b" \\c.txt')).toBe(';\r\n filename="a \\"b\\" \\\\c.txt"');
  });
  it('uses RFC 2231 with continuations, never splitting a character', () => {
    const value = '€'.repeat(40);
    const p = mimeParam('filename', value);
    expect(p).toContain("filename*0*=utf-8''");
    const segments = [...p.matchAll(/filename\*\d+\*=([^;\r]*)/g)].map((m) => m[1]!.replace("utf-8''", ''));
    for (const s of segments) {
      expect(strict.decode(Buffer.from(decodeURIComponent(s), 'utf8'))).toMatch(/^€+$/);
    }
    expect(decodeURIComponent(segments.join(''))).toBe(value);
    expect(longestLine(p.replace(/^;\r\n/, ''))).toBeLessThanOrEqual(78);
  });
});
