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
  it('escapes values in html and keeps them as-is in text', () => {
    const vals = { NAME: '<b>Ann</b>' };
    expect(renderPreview('<p>Hi {{{ NAME }}}</p>', vals, { html: true })).toBe(
      '<p>Hi &lt;b&gt;Ann&lt;/b&gt;</p>',
    );
    expect(renderPreview('Hi {{{NAME}}}', vals, { html: false })).toBe('Hi <b>Ann</b>');
  });
  it('falls back to the declared fallback, then the inline one, else leaves the placeholder', () => {
    expect(renderPreview('{{{A}}}', {}, { html: true, fallbacks: { A: 'x&y' } })).toBe('x&amp;y');
    expect(renderPreview('{{{A|there}}}', {}, { html: true })).toBe('there');
    expect(renderPreview('{{{A}}} {{x}}', {}, { html: true })).toBe('{{{A}}} {{x}}');
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
