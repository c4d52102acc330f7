/**
 * A template's text as the editor handles it: the live preview with sample values (filled as the
 * API renders it), the placeholders it uses and its declared variables. Tested in
 * template-text.test.ts.
 */
import escape from 'escape-html';

/** Sample values for a preview from `KEY=value` lines (blank lines and lines without `=` are skipped). */
export function parseSampleVariables(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (key) out[key] = line.slice(eq + 1).trim();
  }
  return out;
}

/** `& < > " '` as entities: `escape-html`, the escaper the API and core use too. */
export const escapeHtml: (s: string) => string = escape;

/** The placeholder syntax the API renders: `{{{NAME}}}`, `{{{ NAME | fallback }}}`, dotted names. */
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*(?:\|([^{}]*))?\}\}\}/g;

/**
 * A preview of a template part with sample values, as the API renders it: a value (escaped in
 * html), else the declared fallback (escaped in html), else the inline `|fallback` (verbatim),
 * else the placeholder is left as written so the author sees what is missing.
 */
export function renderPreview(
  source: string,
  values: Readonly<Record<string, string>>,
  opts: { html: boolean; fallbacks?: Readonly<Record<string, string | number | null | undefined>> },
): string {
  const esc = opts.html ? escapeHtml : (s: string) => s;
  return source.replace(PLACEHOLDER, (raw, name: string, inline: string | undefined) => {
    const v = values[name];
    if (v !== undefined) return esc(v);
    const declared = opts.fallbacks?.[name];
    if (declared !== undefined && declared !== null) return esc(String(declared));
    if (inline !== undefined) return inline.trim();
    return raw;
  });
}

/** Variable names used by a template source, in first-use order. */
export function placeholderNames(source: string): string[] {
  const seen = new Set<string>();
  for (const m of source.matchAll(PLACEHOLDER)) seen.add(m[1]!);
  return [...seen];
}

export interface DeclaredVariable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}

/**
 * A template's declared variables from lines `KEY`, `KEY=fallback`, `KEY:number` or
 * `KEY:number=5` (blank lines skipped). A number fallback that is not a number stays a string, for
 * the API to refuse with its own message.
 */
export function parseDeclaredVariables(text: string): DeclaredVariable[] {
  const out: DeclaredVariable[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim()) continue;
    const eq = line.indexOf('=');
    const head = (eq < 0 ? line : line.slice(0, eq)).trim();
    const fallback = eq < 0 ? null : line.slice(eq + 1).trim();
    const [key = '', kind] = head.split(':').map((s) => s.trim());
    const type = kind === 'number' ? 'number' : 'string';
    const asNumber = fallback !== null && type === 'number' && fallback !== '' ? Number(fallback) : NaN;
    out.push({ key, type, fallback_value: Number.isFinite(asNumber) ? asNumber : fallback });
  }
  return out;
}

/** The lines {@link parseDeclaredVariables} reads, from declared variables. */
export function formatDeclaredVariables(vars: readonly DeclaredVariable[]): string {
  return vars
    .map(
      (v) =>
        `${v.key}${v.type === 'number' ? ':number' : ''}${v.fallback_value === null || v.fallback_value === undefined ? '' : `=${v.fallback_value}`}`,
    )
    .join('\n');
}
