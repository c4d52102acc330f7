/**
 * The plain-text alternative generated from html when a send gives no `text`. The converter is
 * compiled once at module load (html-to-text's `compile` builds its selector decision tree, the
 * expensive part), and results are cached by html so a broadcast converts its html once.
 */
import { compile } from 'html-to-text';
import { LRUCache } from 'lru-cache';

const convert = compile({
  wordwrap: 78,
  formatters: {
    // a table cell's text followed by a space, so `<td>Item</td><td>€1.00</td>` reads "Item €1.00"
    cell(elem, walk, builder) {
      walk(elem.children, builder);
      builder.addInline(' ');
    },
  },
  selectors: [
    // images carry no text worth reading in a text part; `cid:` sources are meaningless there
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
    // emails lay out with tables: one line per row reads better than html-to-text's run-on
    // default and, unlike its data-table format, survives nested layout tables
    { selector: 'table', format: 'block' },
    { selector: 'tr', format: 'block', options: { leadingLineBreaks: 1, trailingLineBreaks: 1 } },
    { selector: 'td', format: 'cell' },
    { selector: 'th', format: 'cell' },
  ],
});

// Bounded by entries and characters; an html over a sixteenth of the budget is never kept, so one
// huge body cannot evict everything else.
const cache = new LRUCache<string, string>({
  max: 128,
  maxSize: 4_000_000,
  maxEntrySize: 250_000,
  sizeCalculation: (text, html) => html.length + text.length + 1,
});

/** Plain text for `html`, as a reader of the text/plain part should see it. */
export function textFromHtml(html: string): string {
  const hit = cache.get(html);
  if (hit !== undefined) return hit;
  const text = convert(html);
  cache.set(html, text);
  return text;
}
