import { describe, expect, it } from 'vitest';
import {
  buildQuery,
  escapeHtml,
  formatDeclaredVariables,
  href,
  importProgress,
  laneSeries,
  parseDeclaredVariables,
  parseRoute,
  parseSampleVariables,
  placeholderNames,
  renderPreview,
  splitList,
  statusTone,
} from './format.js';

describe('buildQuery', () => {
  it('keeps set values only, encoded', () => {
    expect(buildQuery({ to: 'a+b@x.test', subject: '', status: undefined, limit: 20, tag: null })).toBe(
      '?to=a%2Bb%40x.test&limit=20',
    );
    expect(buildQuery({})).toBe('');
  });
});

describe('routes', () => {
  it('parses segments and query from the hash', () => {
    expect(parseRoute('#/emails/abc%2Fd?to=x%40y&status=sent')).toEqual({
      segments: ['emails', 'abc/d'],
      query: { to: 'x@y', status: 'sent' },
    });
    expect(parseRoute('')).toEqual({ segments: [], query: {} });
    expect(parseRoute('#/%E0%A4%A')).toEqual({ segments: ['%E0%A4%A'], query: {} });
  });
  it('builds hashes that parse back', () => {
    const h = href('emails', 'a/b?c');
    expect(parseRoute(h).segments).toEqual(['emails', 'a/b?c']);
  });
});

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

describe('importProgress', () => {
  it('counts handled rows against the total', () => {
    expect(
      importProgress({ total: 10, created: 3, updated: 1, skipped: 0, failed: 1 }, 'in_progress'),
    ).toEqual({
      done: 5,
      total: 10,
      percent: 50,
    });
    expect(importProgress(null, 'queued')).toEqual({ done: 0, total: 0, percent: 0 });
    expect(
      importProgress({ total: 0, created: 2, updated: 0, skipped: 0, failed: 0 }, 'completed').percent,
    ).toBe(100);
  });
});

describe('laneSeries', () => {
  it('groups points per lane and sums per time, sorted', () => {
    const s = laneSeries({
      data: [
        { lane: 'transactional', bucket: '2026-01-01T01:00:00.000Z', sent: 2, delivered: 1, opened: 9 },
        { lane: 'transactional', timestamp: '2026-01-01T00:00:00Z', sent: 1, bounced: 1 },
        { lane: 'broadcast', timestamp: '2026-01-01T00:00:00Z', complained: 3 },
      ],
    });
    expect(s.map((l) => l.lane)).toEqual(['broadcast', 'transactional']);
    const t = s[1]!;
    expect(t.times).toEqual([
      Date.parse('2026-01-01T00:00:00Z') / 1000,
      Date.parse('2026-01-01T01:00:00Z') / 1000,
    ]);
    expect(t.values.sent).toEqual([1, 2]);
    expect(t.totals).toEqual({ sent: 3, delivered: 1, bounced: 1, complained: 0 });
  });
  it('reads a lanes object too, and ignores junk', () => {
    const s = laneSeries({ lanes: { bulk: [{ time: 1_700_000_000_000, sent: 4 }, { nope: 1 }] } });
    expect(s).toHaveLength(1);
    expect(s[0]!.times).toEqual([1_700_000_000]);
    expect(laneSeries(null)).toEqual([]);
  });
});

describe('misc', () => {
  it('splits lists and maps statuses to tones', () => {
    expect(splitList('a@x, b@y\n\n c@z ,')).toEqual(['a@x', 'b@y', 'c@z']);
    expect(statusTone('delivered')).toBe('ok');
    expect(statusTone('bounced')).toBe('bad');
    expect(statusTone('queued')).toBe('warn');
    expect(statusTone('whatever')).toBe('neutral');
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
