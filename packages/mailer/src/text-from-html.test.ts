import { describe, expect, it } from 'vitest';
import { textFromHtml } from './text-from-html.js';

describe('textFromHtml', () => {
  it('renders headings, paragraphs and links, and skips images', () => {
    const text = textFromHtml(
      '<h1>Welcome</h1><p>Visit <a href="https://example.com/a">our site</a> or <a href="https://example.com">https://example.com</a>.</p><img src="cid:logo" alt="Logo">',
    );
    expect(text).toBe('WELCOME\n\nVisit our site [https://example.com/a] or https://example.com.');
  });

  it('puts each table row on its own line, cells separated by a space', () => {
    const text = textFromHtml(
      '<table><tr><td>Item 1</td><td>€1.00</td></tr><tr><td>Item 2</td><td>€2.00</td></tr></table>',
    );
    expect(text.split('\n').map((l) => l.trim())).toEqual(['Item 1 €1.00', 'Item 2 €2.00']);
  });

  it('wraps long paragraphs at 78 columns', () => {
    const text = textFromHtml(`<p>${'word '.repeat(60)}</p>`);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(78);
  });

  it('returns the same text for the same html (cached)', () => {
    const html = '<p>Same html</p>';
    expect(textFromHtml(html)).toBe(textFromHtml(`${'<p>Same'} html</p>`));
  });
});
