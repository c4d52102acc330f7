/**
 * The plain-text alternative generated from html when a send gives no `text`. The converter is
 * compiled once at module load (html-to-text's `compile` builds its selector decision tree, the
 * expensive part), and results are cached by html so a broadcast converts its html once.
 */
import { compile } from 'html-to-text';
import { BoundedCache } from './bounded-cache.js';

const convert = compile({
  wordwrap: 78,
  selectors: [
    // images carry no text worth reading in a text part; `cid:` sources are meaningless there
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
  ],
});

const cache = new BoundedCache<string>(128, 4_000_000);

/** Plain text for `html`, as a reader of the text/plain part should see it. */
export function textFromHtml(html: string): string {
  const hit = cache.get(html);
  if (hit !== undefined) return hit;
  const text = convert(html);
  cache.set(html, text);
  return text;
}
