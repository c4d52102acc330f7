/**
 * Renders compiled templates (see parse-template.ts) with send-time variable values. This runs in
 * the worker once per email, so it only walks the precompiled slots and joins strings.
 *
 * Value precedence for each placeholder: the value provided with the send, else the template's
 * declared `fallback_value` (when not null), else the placeholder's inline `|fallback`, else the
 * variable is missing and nothing is rendered (the email is not sent).
 *
 * Escaping: values and declared fallbacks are data, so in html they are escaped (`& < > " '`);
 * in text and subject they are inserted as-is. Inline `|fallback` text is written by the template
 * author inside the template source, so it is inserted verbatim like the surrounding markup.
 *
 * The rendered subject never contains a line break or control character: CR, LF, NUL, the other
 * C0/C1 controls except TAB, DEL, U+2028 and U+2029 are replaced by a space in the whole rendered
 * subject (defence in depth against header injection).
 * Acceptance should refuse such values first with `checkSubjectValues`, which gives the client a
 * validation error instead of a silently altered subject.
 */
import { HEADER_UNSAFE } from '@petrel/contracts';
import { escapeHtml } from '../kernel/html.js';
import type { CompiledTemplate } from './parse-template.js';

/** A template variable as declared on the template. */
export interface DeclaredVariable {
  key: string;
  type: 'string' | 'number';
  fallback_value?: string | number | null;
}

/** Send-time values (`template.variables` of an email). */
export type TemplateValues = Readonly<Record<string, string | number>>;

/** The parts of a template that carry placeholders; any may be absent. */
export interface CompiledParts {
  subject?: CompiledTemplate;
  html?: CompiledTemplate;
  text?: CompiledTemplate;
}

export type RenderResult =
  { ok: true; subject?: string; html?: string; text?: string } | { ok: false; missing: string[] };

/** Every header-unsafe character (the set the send validation refuses in header fields). */
const HEADER_UNSAFE_ALL = new RegExp(HEADER_UNSAFE.source, 'g');

/** Replace every header-unsafe character with a space. */
export function sanitizeSubject(value: string): string {
  return HEADER_UNSAFE.test(value) ? value.replace(HEADER_UNSAFE_ALL, ' ') : value;
}

type Source = 'value' | 'declared' | 'inline';

/**
 * Resolves slot values with the precedence described in the header. Declared fallbacks are
 * indexed lazily: the common case (every value provided) never builds the map.
 */
class Resolver {
  private fallbacks: Map<string, string | number> | undefined;

  constructor(
    private readonly values: TemplateValues,
    private readonly declared: readonly DeclaredVariable[],
  ) {}

  /** The raw (unescaped) value and where it came from, or `undefined` when missing. */
  resolve(name: string, inline: string | undefined): [string, Source] | undefined {
    if (Object.hasOwn(this.values, name)) {
      const v = this.values[name];
      if (typeof v === 'string') return [v, 'value'];
      if (typeof v === 'number') return [String(v), 'value'];
    }
    const fallback = this.declaredFallback(name);
    if (fallback !== undefined) return [String(fallback), 'declared'];
    if (inline !== undefined) return [inline, 'inline'];
    return undefined;
  }

  private declaredFallback(name: string): string | number | undefined {
    if (this.declared.length === 0) return undefined;
    if (this.fallbacks === undefined) {
      this.fallbacks = new Map();
      for (const d of this.declared) {
        const f = d.fallback_value;
        if ((typeof f === 'string' || typeof f === 'number') && !this.fallbacks.has(d.key))
          this.fallbacks.set(d.key, f);
      }
    }
    return this.fallbacks.get(name);
  }
}

function renderPart(t: CompiledTemplate, resolver: Resolver, html: boolean, missing: string[]): string {
  const { chunks, slots } = t;
  let out = chunks[0] ?? '';
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i] as CompiledTemplate['slots'][number];
    const resolved = resolver.resolve(slot.name, slot.fallback);
    if (resolved === undefined) {
      if (!missing.includes(slot.name)) missing.push(slot.name);
    } else {
      out += html && resolved[1] !== 'inline' ? escapeHtml(resolved[0]) : resolved[0];
    }
    out += chunks[i + 1] ?? '';
  }
  return out;
}

/**
 * Render a template's subject, html and text with send-time values.
 *
 * @param t - the compiled parts; absent parts are absent in the result.
 * @param values - values provided with the send, keyed by variable name.
 * @param declared - the template's declared variables (their fallbacks apply when a value is absent).
 * @returns the rendered parts, or `{ ok: false, missing }` naming every variable (first-use order,
 *   subject then html then text) that has no value, declared fallback or inline fallback.
 */
export function renderTemplate(
  t: CompiledParts,
  values: TemplateValues,
  declared: readonly DeclaredVariable[],
): RenderResult {
  const resolver = new Resolver(values, declared);
  const missing: string[] = [];
  const subject = t.subject === undefined ? undefined : renderPart(t.subject, resolver, false, missing);
  const html = t.html === undefined ? undefined : renderPart(t.html, resolver, true, missing);
  const text = t.text === undefined ? undefined : renderPart(t.text, resolver, false, missing);
  if (missing.length > 0) return { ok: false, missing };
  const result: { ok: true; subject?: string; html?: string; text?: string } = { ok: true };
  if (subject !== undefined) result.subject = sanitizeSubject(subject);
  if (html !== undefined) result.html = html;
  if (text !== undefined) result.text = text;
  return result;
}

/**
 * The variables that would be missing at render time, for acceptance-time validation (such an
 * email is refused before it is stored). A name is missing if at least one of its placeholders
 * has no value, no declared fallback and no inline fallback.
 *
 * @param compiled - the template's compiled parts; `undefined` entries are skipped.
 * @returns missing names, unique, in first-use order.
 */
export function findMissingVariables(
  compiled: readonly (CompiledTemplate | undefined)[],
  values: TemplateValues,
  declared: readonly DeclaredVariable[],
): string[] {
  const resolver = new Resolver(values, declared);
  const missing: string[] = [];
  for (const t of compiled) {
    if (t === undefined) continue;
    for (const slot of t.slots) {
      if (!missing.includes(slot.name) && resolver.resolve(slot.name, slot.fallback) === undefined) {
        missing.push(slot.name);
      }
    }
  }
  return missing;
}

/**
 * Variables whose effective value (provided value, else declared fallback, else inline fallback)
 * would put a line break or control character into the subject. Acceptance refuses these with a validation error rather
 * than letting render replace the characters with spaces.
 *
 * @returns offending names, unique, in first-use order; `[]` when `subject` is undefined.
 */
export function checkSubjectValues(
  subject: CompiledTemplate | undefined,
  values: TemplateValues,
  declared: readonly DeclaredVariable[],
): string[] {
  if (subject === undefined) return [];
  const resolver = new Resolver(values, declared);
  const bad: string[] = [];
  for (const slot of subject.slots) {
    const resolved = resolver.resolve(slot.name, slot.fallback);
    if (resolved !== undefined && HEADER_UNSAFE.test(resolved[0]) && !bad.includes(slot.name)) {
      bad.push(slot.name);
    }
  }
  return bad;
}
