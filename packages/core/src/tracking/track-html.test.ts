import { describe, expect, it } from 'vitest';
import { decodeAttribute, findTrackableLinks, pixelTag, trackedHtml } from './track-html.js';

const BASE = 'https://petrel.test';
/** Rewrites every trackable link to `T(<url>)`, so the test reads which URL each one carried. */
const rewrite = (html: string, pixel: string | null = null) =>
  trackedHtml(findTrackableLinks(html, BASE), (u) => `T(${u})`, pixel);
const urls = (html: string) => findTrackableLinks(html, BASE).urls;

describe('findTrackableLinks / trackedHtml', () => {
  it('rewrites the href of <a> in any case and quote style, leaving the rest of the tag alone', () => {
    const html =
      '<A HREF="https://a.test/1" class="x">a</A>' +
      "<a class='y' href='https://a.test/2'>b</a>" +
      '<a href=https://a.test/3?x=1&y=2 id=z>c</a>' +
      '<a\n  data-x="1"\n  Href = "https://a.test/4"\n>d</a>';
    expect(rewrite(html)).toBe(
      '<A href="T(https://a.test/1)" class="x">a</A>' +
        '<a class=\'y\' href="T(https://a.test/2)">b</a>' +
        '<a href="T(https://a.test/3?x=1&amp;y=2)" id=z>c</a>' +
        '<a\n  data-x="1"\n  href="T(https://a.test/4)"\n>d</a>',
    );
  });

  it('keeps query strings, fragments, ports, userinfo-free paths exactly', () => {
    const list = [
      'https://shop.test/p?id=1&ref=mail#reviews',
      'http://shop.test:8080/a/b/?q=%20x&empty=&x=1;y=2',
      'https://shop.test/#/spa/route?x=1',
      'HTTPS://Shop.TEST/Case',
    ];
    const html = list.map((u) => `<a href="${u.replace(/&/g, '&amp;')}">x</a>`).join('');
    expect(urls(html)).toEqual(list);
  });

  it('decodes character references the way a browser reads the attribute', () => {
    expect(urls('<a href="https://a.test/?a=1&amp;b=2&#38;c=3&#x26;d=4">x</a>')).toEqual([
      'https://a.test/?a=1&b=2&c=3&d=4',
    ]);
    // a bare & before name= is a literal ampersand, as in most hand-written query strings
    expect(urls('<a href="https://a.test/?a=1&b=2&copy=3">x</a>')).toEqual([
      'https://a.test/?a=1&b=2&copy=3',
    ]);
    // surrounding whitespace is stripped by the browser
    expect(urls('<a href="  https://a.test/x \n">x</a>')).toEqual(['https://a.test/x']);
    // references whose meaning this module does not know: left untracked rather than guessed
    expect(urls('<a href="https://a.test/?a=1&copy;">x</a>')).toEqual([]);
    expect(urls('<a href="https://a.test/?a=1&copy">x</a>')).toEqual([]);
    expect(urls('<a href="https://a.test/&#x80;">x</a>')).toEqual([]);
  });

  it('leaves non-http links, placeholders, its own links and odd hrefs untouched', () => {
    const html = [
      '<a href="mailto:ada@example.test">m</a>',
      '<a href="tel:+123">t</a>',
      '<a href="#top">anchor</a>',
      '<a href="/relative">r</a>',
      '<a href="javascript:alert(1)">j</a>',
      '<a href="ftp://files.test/x">f</a>',
      '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">u</a>',
      '<a href="https://a.test/{{{NAME}}}">p</a>',
      `<a href="${BASE}/unsubscribe/abc.def">unsubscribe</a>`,
      `<a href="${BASE}/t/c/abc.def">already tracked</a>`,
      '<a href="https://a.test/\ttab">tab inside</a>',
      '<a href="">empty</a>',
      '<a href>bare</a>',
      '<a name="x">no href</a>',
      '<abbr href="https://a.test/">not an a</abbr>',
      '<area href="https://a.test/">area</area>',
      `<a href="https://a.test/${'x'.repeat(5000)}">long</a>`,
    ].join('\n');
    expect(urls(html)).toEqual([]);
    expect(rewrite(html)).toBe(html);
  });

  it('takes the first href of a tag, and attributes holding "href=" or ">" inside quotes', () => {
    expect(rewrite('<a href="https://a.test/1" href="https://a.test/2">x</a>')).toBe(
      '<a href="T(https://a.test/1)" href="https://a.test/2">x</a>',
    );
    expect(rewrite('<a title="see href=https://evil.test > here" href="https://a.test/ok">x</a>')).toBe(
      '<a title="see href=https://evil.test > here" href="T(https://a.test/ok)">x</a>',
    );
    expect(rewrite('<a data-url=\'https://a.test/"q"\' href="https://a.test/ok"/>')).toBe(
      '<a data-url=\'https://a.test/"q"\' href="T(https://a.test/ok)"/>',
    );
  });

  it('rewrites links inside Outlook conditional comments too, and escapes the new href', () => {
    const html = '<!--[if mso]><a href="https://a.test/vml">b</a><![endif]-->';
    expect(rewrite(html)).toBe('<!--[if mso]><a href="T(https://a.test/vml)">b</a><![endif]-->');
    const out = trackedHtml(
      findTrackableLinks('<a href="https://a.test/">x</a>', BASE),
      () => 'https://p.test/?a="&b',
      null,
    );
    expect(out).toBe('<a href="https://p.test/?a=&quot;&amp;b">x</a>');
  });

  it('puts the pixel before the last </body>, or at the end', () => {
    const px = pixelTag(`${BASE}/t/o/tok`);
    expect(px).toMatch(/^<img src="https:\/\/petrel\.test\/t\/o\/tok" width="1" height="1" alt=""/);
    expect(rewrite('<html><body><p>x</p></body></html>', px)).toBe(`<html><body><p>x</p>${px}</body></html>`);
    expect(rewrite('<p>x</p><BODY></BODY >tail</body>', px)).toBe(`<p>x</p><BODY></BODY >tail${px}</body>`);
    expect(rewrite('<p>x</p>', px)).toBe(`<p>x</p>${px}`);
  });

  it('is linear on hostile input', () => {
    const html = `${'<a href="'.repeat(20_000)}${'<a '.repeat(20_000)}`;
    const started = performance.now();
    expect(urls(html)).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('decodeAttribute', () => {
  it('decodes the references a URL needs and refuses unknown ones', () => {
    expect(decodeAttribute('a&amp;b&AMP;c&lt;&gt;&quot;&apos;&#65;&#x42;')).toBe('a&b&c<>"\'AB');
    expect(decodeAttribute('a&b=1')).toBe('a&b=1');
    expect(decodeAttribute('a&nbsp;')).toBeNull();
    expect(decodeAttribute('a&#65')).toBeNull();
    expect(decodeAttribute('a&#0;')).toBeNull();
    expect(decodeAttribute('plain')).toBe('plain');
  });
});
