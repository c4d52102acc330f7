/**
 * Template placeholder parser. Owns the one placeholder syntax Petrel understands:
 * triple braces, `{{{NAME}}}`, with optional inner whitespace (`{{{ NAME }}}`), an optional
 * inline fallback (`{{{NAME|there}}}`, Resend's broadcast form) and dotted names
 * (`{{{contact.first_name}}}`) kept in the AST for contact personalisation.
 *
 * It is deliberately not a template engine: no conditionals, loops, partials or helpers. A
 * template is compiled once into static chunks and placeholder slots, so rendering (done by the
 * worker for every email) is a single pass of string joins with no re-scanning.
 *
 * Anything that is not a well-formed placeholder is literal text and is kept byte-for-byte:
 * double braces (`{{x}}`), an unterminated `{{{`, a `{{{ }}}` whose inside is not a name, or a
 * fallback containing `{` or `}`. A run of four or more opening braces resolves to literal braces
 * followed by the placeholder that the last three open (`{{{{A}}}}` → `{` + A + `}`).
 */

/** One placeholder occurrence in a template. */
export interface TemplateSlot {
  /** Variable name as written, e.g. `PRODUCT` or `contact.first_name`. */
  readonly name: string;
  /** Inline fallback after `|`, trimmed; `undefined` when there is no `|`. `''` is a fallback. */
  readonly fallback: string | undefined;
  /** The placeholder exactly as it appears in the source, for error messages. */
  readonly raw: string;
}

/** A template compiled for fast rendering: `chunks[0] + slot[0] + chunks[1] + … + chunks[n]`. */
export interface CompiledTemplate {
  /** Static text; always exactly `slots.length + 1` entries (possibly empty strings). */
  readonly chunks: readonly string[];
  readonly slots: readonly TemplateSlot[];
  /** Every variable name used by a slot, in first-use order. */
  readonly variables: ReadonlySet<string>;
}

/**
 * `{{{`, optional whitespace, a name (segments of ASCII letters, digits, underscore, joined by
 * dots), optional whitespace, an optional `|fallback` that holds no braces, then `}}}`.
 * Every quantifier is bounded by a character class the next token cannot start with, or by a
 * brace, so matching stays linear in the input (no catastrophic backtracking).
 */
const PLACEHOLDER = /\{\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*(?:\|([^{}]*))?\}\}\}/g;

/**
 * Compile a template source once.
 *
 * @param source - subject, html or text of a template (or of a broadcast).
 * @returns the static chunks, the placeholder slots and the set of variable names used.
 */
export function parseTemplate(source: string): CompiledTemplate {
  const chunks: string[] = [];
  const slots: TemplateSlot[] = [];
  const variables = new Set<string>();
  let last = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    const name = match[1] as string;
    const fallback = match[2];
    chunks.push(source.slice(last, match.index));
    slots.push({ name, fallback: fallback === undefined ? undefined : fallback.trim(), raw: match[0] });
    variables.add(name);
    last = match.index + match[0].length;
  }
  chunks.push(source.slice(last));
  return { chunks, slots, variables };
}
