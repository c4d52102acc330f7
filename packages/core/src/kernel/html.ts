import escape from 'escape-html';

/**
 * Escapes `& < > " '` (as `&amp; &lt; &gt; &quot; &#39;`) for HTML text and quoted attribute
 * values: the one escaper of core and the apps, from `escape-html` (the one express uses).
 */
export const escapeHtml: (value: string) => string = escape;
