import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../kernel/html.js';
import { parseTemplate } from './parse-template.js';
import {
  checkSubjectValues,
  findMissingVariables,
  renderTemplate,
  sanitizeSubject,
  type DeclaredVariable,
} from './render-template.js';

const p = parseTemplate;

describe('renderTemplate', () => {
  it('renders subject, html and text with provided values', () => {
    const r = renderTemplate(
      { subject: p('Order {{{ID}}}'), html: p('<p>Hi {{{NAME}}}</p>'), text: p('Hi {{{NAME}}}') },
      { ID: 42, NAME: 'Ada' },
      [],
    );
    expect(r).toEqual({ ok: true, subject: 'Order 42', html: '<p>Hi Ada</p>', text: 'Hi Ada' });
  });

  it('omits absent parts', () => {
    expect(renderTemplate({ html: p('x') }, {}, [])).toEqual({ ok: true, html: 'x' });
  });

  it('escapes values in html only', () => {
    const v = { V: `<a href="x">Tom & 'Jerry'</a>` };
    const r = renderTemplate({ subject: p('{{{V}}}'), html: p('<b>{{{V}}}</b>'), text: p('{{{V}}}') }, v, []);
    expect(r).toEqual({
      ok: true,
      subject: v.V,
      html: '<b>&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;</b>',
      text: v.V,
    });
  });

  it('applies precedence: value, declared fallback, inline fallback', () => {
    const declared: DeclaredVariable[] = [
      { key: 'A', type: 'string', fallback_value: 'declA' },
      { key: 'B', type: 'string', fallback_value: 'declB' },
      { key: 'C', type: 'number', fallback_value: null },
      { key: 'D', type: 'number', fallback_value: 7 },
    ];
    const t = { text: p('{{{A|inA}}} {{{B|inB}}} {{{C|inC}}} {{{D}}} {{{E|inE}}}') };
    expect(renderTemplate(t, { A: 'valA' }, declared)).toEqual({ ok: true, text: 'valA declB inC 7 inE' });
  });

  it('treats an empty string as a provided value and an empty inline fallback as a fallback', () => {
    const declared: DeclaredVariable[] = [{ key: 'A', type: 'string', fallback_value: 'x' }];
    expect(renderTemplate({ text: p('[{{{A}}}][{{{B|}}}]') }, { A: '' }, declared)).toEqual({
      ok: true,
      text: '[][]',
    });
  });

  it('escapes declared fallbacks in html but not inline fallbacks (template source)', () => {
    const declared: DeclaredVariable[] = [{ key: 'A', type: 'string', fallback_value: '<A>' }];
    expect(renderTemplate({ html: p('{{{A}}} {{{B|<i>friend</i>}}}') }, {}, declared)).toEqual({
      ok: true,
      html: '&lt;A&gt; <i>friend</i>',
    });
  });

  it('reports every missing variable once, in first-use order', () => {
    const r = renderTemplate(
      { subject: p('{{{S}}}'), html: p('{{{X}}}{{{Y}}}{{{X}}}'), text: p('{{{Z}}}{{{S}}}') },
      {},
      [],
    );
    expect(r).toEqual({ ok: false, missing: ['S', 'X', 'Y', 'Z'] });
  });

  it('counts a name as missing if any of its placeholders lacks a fallback', () => {
    const r = renderTemplate({ subject: p('{{{N}}}'), html: p('{{{N|there}}}') }, {}, []);
    expect(r).toEqual({ ok: false, missing: ['N'] });
  });

  it('does not read inherited properties as values', () => {
    const r = renderTemplate({ text: p('{{{constructor}}}{{{toString}}}{{{__proto__}}}') }, {}, []);
    expect(r).toEqual({ ok: false, missing: ['constructor', 'toString', '__proto__'] });
  });

  it('renders numbers with String(n)', () => {
    const r = renderTemplate({ text: p('{{{A}}} {{{B}}} {{{C}}}') }, { A: 0, B: -1.5, C: 2 ** 53 - 1 }, []);
    expect(r).toEqual({ ok: true, text: '0 -1.5 9007199254740991' });
  });

  it('resolves dotted names from flat keys', () => {
    const r = renderTemplate(
      { text: p('Hi {{{contact.first_name|there}}}') },
      { 'contact.first_name': 'Ada' },
      [],
    );
    expect(r).toEqual({ ok: true, text: 'Hi Ada' });
  });

  it('replaces line breaks in the rendered subject with spaces', () => {
    const r = renderTemplate(
      { subject: p('A {{{V}}} B'), text: p('{{{V}}}') },
      { V: 'x\r\ny\u2028z\0w' },
      [],
    );
    expect(r).toEqual({ ok: true, subject: 'A x  y z w B', text: 'x\r\ny\u2028z\0w' });
  });

  it('keeps unicode values intact', () => {
    const r = renderTemplate({ html: p('{{{V}}}') }, { V: 'Grüße 👋 日本語' }, []);
    expect(r).toEqual({ ok: true, html: 'Grüße 👋 日本語' });
  });
});

describe('findMissingVariables', () => {
  it('matches what render reports', () => {
    const declared: DeclaredVariable[] = [{ key: 'B', type: 'string', fallback_value: 'b' }];
    const parts = [p('{{{A}}}'), undefined, p('{{{B}}}{{{C|c}}}{{{D}}}{{{A}}}')];
    expect(findMissingVariables(parts, {}, declared)).toEqual(['A', 'D']);
    expect(findMissingVariables(parts, { A: 1, D: 'd' }, declared)).toEqual([]);
  });
});

describe('checkSubjectValues', () => {
  it('names variables whose effective value has a line break', () => {
    const declared: DeclaredVariable[] = [{ key: 'F', type: 'string', fallback_value: 'a\nb' }];
    const subject = p('{{{A}}} {{{B}}} {{{F}}} {{{A}}} {{{M}}}');
    expect(checkSubjectValues(subject, { A: 'x\ry', B: 'fine' }, declared)).toEqual(['A', 'F']);
    expect(checkSubjectValues(undefined, { A: '\n' }, [])).toEqual([]);
  });
});

describe('helpers', () => {
  it('escapeHtml escapes the five specials and nothing else', () => {
    expect(escapeHtml(`&<>"'\`=/`)).toBe('&amp;&lt;&gt;&quot;&#39;`=/');
    expect(escapeHtml('plain')).toBe('plain');
  });
  it('sanitizeSubject', () => {
    expect(sanitizeSubject('a\nb\rc\u2029d\u0085e\vf\fg\u0000h\u007fi\u2028j')).toBe('a b c d e f g h i j');
    expect(sanitizeSubject('tab\tok é 👋')).toBe('tab\tok é 👋');
  });
});

const staticChunk = fc.string({ maxLength: 30 }).filter((s) => !s.includes('{') && !s.includes('}'));
const key = fc.constantFrom('A', 'B', 'C', 'NAME', 'PRODUCT');

describe('renderTemplate properties', () => {
  const template = fc.tuple(fc.array(fc.tuple(staticChunk, key), { maxLength: 8 }), staticChunk);
  const values = fc.record({
    A: fc.string(),
    B: fc.string(),
    C: fc.string(),
    NAME: fc.string(),
    PRODUCT: fc.string(),
  });

  it('text output equals the manual concatenation', () => {
    fc.assert(
      fc.property(template, values, ([parts, tail], vals) => {
        const src = parts.map(([s, k]) => `${s}{{{${k}}}}`).join('') + tail;
        const expected = parts.map(([s, k]) => s + vals[k as keyof typeof vals]).join('') + tail;
        expect(renderTemplate({ text: p(src) }, vals, [])).toEqual({ ok: true, text: expected });
      }),
    );
  });

  it('html output never contains a raw < from a value', () => {
    fc.assert(
      fc.property(template, values, ([parts, tail], vals) => {
        const clean = (s: string): string => s.replace(/[<"']/g, '');
        const src = parts.map(([s, k]) => `${clean(s)}{{{${k}}}}`).join('') + clean(tail);
        const r = renderTemplate({ html: p(src) }, vals, []);
        expect(r.ok).toBe(true);
        if (r.ok) {
          expect(r.html).not.toContain('<');
          expect(r.html).not.toMatch(/["']/);
        }
      }),
    );
  });

  it('subject output never contains CR or LF, whatever the values', () => {
    const nasty = fc.string({
      unit: fc.constantFrom('a', ' ', '\r', '\n', '\u2028', '\u2029', '\0', 'é'),
      maxLength: 20,
    });
    fc.assert(
      fc.property(
        template,
        fc.record({ A: nasty, B: fc.string(), C: nasty, NAME: nasty, PRODUCT: fc.string() }),
        ([parts, tail], vals) => {
          const src = parts.map(([s, k]) => `${s}{{{${k}}}}`).join('') + tail;
          const r = renderTemplate({ subject: p(src) }, vals, []);
          expect(r.ok).toBe(true);
          if (r.ok) {
            expect(r.subject).not.toMatch(/[\r\n\u2028\u2029\0]/);
            expect(sanitizeSubject(r.subject ?? '')).toBe(r.subject);
          }
          if (checkSubjectValues(p(src), vals, []).length === 0 && r.ok) {
            expect(r.subject).toBe(parts.map(([s, k]) => s + vals[k as keyof typeof vals]).join('') + tail);
          }
        },
      ),
    );
  });

  it('findMissingVariables agrees with renderTemplate', () => {
    fc.assert(
      fc.property(template, fc.dictionary(key, fc.string()), ([parts, tail], vals) => {
        const t = p(parts.map(([s, k]) => `${s}{{{${k}}}}`).join('') + tail);
        const r = renderTemplate({ html: t }, vals, []);
        const missing = findMissingVariables([t], vals, []);
        expect(r.ok ? [] : r.missing).toEqual(missing);
      }),
    );
  });
});
