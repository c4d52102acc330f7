import { describe, expect, it } from 'vitest';
import {
  escapeHtml,
  formatDeclaredVariables,
  parseDeclaredVariables,
  parseSampleVariables,
  placeholderNames,
  renderPreview,
} from './template-text.js';

describe('renderPreview', () => {
  const ann = { NAME: '<b>Ann</b>' };
  type Opts = Parameters<typeof renderPreview>[2];
  it.each<[does: string, text: string, values: Record<string, string>, opts: Opts, out: string]>([
    ['html: escaped', '<p>Hi {{{ NAME }}}</p>', ann, { html: true }, '<p>Hi &lt;b&gt;Ann&lt;/b&gt;</p>'],
    ['text: as-is', 'Hi {{{NAME}}}', ann, { html: false }, 'Hi <b>Ann</b>'],
    ['no value: the declared fallback', '{{{A}}}', {}, { html: true, fallbacks: { A: 'x&y' } }, 'x&amp;y'],
    ['no value: the inline fallback', '{{{A|there}}}', {}, { html: true }, 'there'],
    ['no value, no fallback: the placeholder', '{{{A}}} {{x}}', {}, { html: true }, '{{{A}}} {{x}}'],
  ])('renders %s', (_does, text, values, opts, out) => {
    expect(renderPreview(text, values, opts)).toBe(out);
  });
  it('lists placeholder names in first-use order', () => {
    expect(placeholderNames('{{{B}}} {{{contact.first_name|x}}} {{{B}}}')).toEqual([
      'B',
      'contact.first_name',
    ]);
  });
  it('reads KEY=value lines', () => {
    expect(parseSampleVariables('A=1\n\nnot a pair\n B = two = 2 \n=x')).toEqual({ A: '1', B: 'two = 2' });
  });
});

describe('escapeHtml', () => {
  it('escapes the five specials', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});

describe('declared variables', () => {
  it('reads KEY, KEY=fallback and KEY:number=5 lines and writes them back', () => {
    const vars = parseDeclaredVariables('NAME=friend\n\nCOUNT:number=5\nPLAN\nBAD:number=x');
    expect(vars).toEqual([
      { key: 'NAME', type: 'string', fallback_value: 'friend' },
      { key: 'COUNT', type: 'number', fallback_value: 5 },
      { key: 'PLAN', type: 'string', fallback_value: null },
      { key: 'BAD', type: 'number', fallback_value: 'x' },
    ]);
    expect(formatDeclaredVariables(vars)).toBe('NAME=friend\nCOUNT:number=5\nPLAN\nBAD:number=x');
  });
});
