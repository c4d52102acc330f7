import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTemplate } from './parse-template.js';

const names = (src: string): string[] => [...parseTemplate(src).variables];
const slots = (src: string) => parseTemplate(src).slots.map(({ name, fallback }) => ({ name, fallback }));

describe('parseTemplate', () => {
  it('splits a template into chunks and slots', () => {
    const t = parseTemplate('Hi {{{NAME}}}, your {{{PRODUCT}}} ships.');
    expect(t.chunks).toEqual(['Hi ', ', your ', ' ships.']);
    expect(t.slots.map((s) => s.name)).toEqual(['NAME', 'PRODUCT']);
    expect(t.slots[0]?.raw).toBe('{{{NAME}}}');
    expect([...t.variables]).toEqual(['NAME', 'PRODUCT']);
  });

  it('keeps a template without placeholders as one chunk', () => {
    expect(parseTemplate('plain').chunks).toEqual(['plain']);
    expect(parseTemplate('').chunks).toEqual(['']);
    expect(parseTemplate('').variables.size).toBe(0);
  });

  it('tolerates whitespace inside the braces', () => {
    expect(slots('{{{ NAME }}}')).toEqual([{ name: 'NAME', fallback: undefined }]);
    expect(slots('{{{\n\tNAME\n}}}')).toEqual([{ name: 'NAME', fallback: undefined }]);
  });

  it('reads an inline fallback, trimmed; an empty fallback is still a fallback', () => {
    expect(slots('{{{contact.first_name|there}}}')).toEqual([
      { name: 'contact.first_name', fallback: 'there' },
    ]);
    expect(slots('{{{ NAME | dear friend }}}')).toEqual([{ name: 'NAME', fallback: 'dear friend' }]);
    expect(slots('{{{NAME|}}}')).toEqual([{ name: 'NAME', fallback: '' }]);
    expect(slots('{{{NAME|a|b}}}')).toEqual([{ name: 'NAME', fallback: 'a|b' }]);
  });

  it('keeps dotted names whole', () => {
    expect(names('{{{contact.first_name}}} {{{a.b.c}}}')).toEqual(['contact.first_name', 'a.b.c']);
  });

  it('leaves double braces and malformed placeholders as literal text', () => {
    for (const src of [
      '{{x}}',
      '{{ x }}',
      '{{{x}}',
      '{{{',
      'a {{{NAME',
      '{{{}}}',
      '{{{ }}}',
      '{{{a b}}}',
      '{{{a.}}}',
      '{{{.a}}}',
      '{{{a-b}}}',
      '{{{NAME|{x}}}}',
      '}}}{{{',
    ]) {
      const t = parseTemplate(src);
      expect(t.slots, src).toEqual([]);
      expect(t.chunks, src).toEqual([src]);
    }
  });

  it('resolves extra braces to literal braces around the placeholder', () => {
    const t = parseTemplate('{{{{A}}}}');
    expect(t.chunks).toEqual(['{', '}']);
    expect(t.slots.map((s) => s.name)).toEqual(['A']);
  });

  it('finds a placeholder after an unterminated one', () => {
    const t = parseTemplate('{{{ oops {{{B}}}');
    expect(t.chunks).toEqual(['{{{ oops ', '']);
    expect(t.slots.map((s) => s.name)).toEqual(['B']);
  });

  it('handles adjacent and repeated placeholders', () => {
    const t = parseTemplate('{{{A}}}{{{B}}}{{{A}}}');
    expect(t.chunks).toEqual(['', '', '', '']);
    expect(t.slots.map((s) => s.name)).toEqual(['A', 'B', 'A']);
    expect([...t.variables]).toEqual(['A', 'B']);
  });

  it('keeps unicode static text intact', () => {
    const t = parseTemplate('Grüße 👋 {{{NAME}}} — 日本語\u2028');
    expect(t.chunks).toEqual(['Grüße 👋 ', ' — 日本語\u2028']);
  });

  it('stays fast on adversarial input', () => {
    const src = '{{{a|'.repeat(20_000) + ' '.repeat(20_000) + '{{{ '.repeat(20_000);
    const start = performance.now();
    const t = parseTemplate(src);
    expect(performance.now() - start).toBeLessThan(500);
    expect(t.chunks).toEqual([src]);
  });
});

/** Static text that cannot form or complete a placeholder. */
const staticChunk = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((s) => !/[{}]/.test(s));
const segment = fc.stringMatching(/^[A-Za-z0-9_]{1,12}$/);
const varName = fc.oneof(
  segment,
  fc.tuple(segment, segment).map(([a, b]) => `${a}.${b}`),
);

describe('parseTemplate properties', () => {
  it('variables equal the names used, chunks equal the static text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(staticChunk, varName, fc.constantFrom('', ' ', '\n')), { maxLength: 10 }),
        staticChunk,
        (parts, tail) => {
          const src = parts.map(([s, n, ws]) => `${s}{{{${ws}${n}${ws}}}}`).join('') + tail;
          const t = parseTemplate(src);
          expect([...t.variables].sort()).toEqual([...new Set(parts.map(([, n]) => n))].sort());
          expect(t.slots.map((s) => s.name)).toEqual(parts.map(([, n]) => n));
          expect(t.chunks).toEqual([...parts.map(([s]) => s), tail]);
        },
      ),
    );
  });

  it('round-trips: joining chunks and raw slots gives the source back', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (src) => {
        const t = parseTemplate(src);
        let rebuilt = t.chunks[0] ?? '';
        t.slots.forEach((s, i) => (rebuilt += s.raw + (t.chunks[i + 1] ?? '')));
        expect(rebuilt).toBe(src);
        expect(t.chunks.length).toBe(t.slots.length + 1);
      }),
    );
  });
});
