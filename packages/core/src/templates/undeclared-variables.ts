/**
 * Publish-time check that a template only uses variables it declares. Creating or updating a
 * draft accepts any placeholder (the author may declare variables later); publishing refuses a
 * template that uses a name that is neither declared nor supplied by Petrel itself, because every
 * send from it would fail with a missing variable.
 *
 * Names supplied by Petrel (never declared, see RESERVED_VARIABLES):
 * `contact.<field>` placeholders and the reserved upper-case names (`FIRST_NAME`, `LAST_NAME`,
 * `EMAIL`, `UNSUBSCRIBE_URL`, `RESEND_UNSUBSCRIBE_URL`), which broadcasts fill per contact. The
 * bare namespace roots `contact` and `this` are not values and count as undeclared.
 */
import { RESERVED_VARIABLES } from '@petrel/contracts';
import type { CompiledTemplate } from './parse-template.js';

/** Reserved names that are namespaces, not values. */
const NAMESPACE_ROOTS: ReadonlySet<string> = new Set(['contact', 'this']);

/** Whether Petrel itself supplies `name`, so a template may use it without declaring it. */
export function isPetrelSuppliedVariable(name: string): boolean {
  if (name.startsWith('contact.')) return true;
  return RESERVED_VARIABLES.has(name) && !NAMESPACE_ROOTS.has(name);
}

/**
 * Names used by the given compiled parts that are neither declared nor Petrel-supplied.
 *
 * @param compiled - subject, html and text of the template; `undefined` entries are skipped.
 * @param declared - the template's declared variables (only `key` matters).
 * @returns undeclared names, unique, in first-use order (empty when the template may be published).
 */
export function undeclaredVariables(
  compiled: readonly (CompiledTemplate | undefined)[],
  declared: readonly { key: string }[],
): string[] {
  const keys = new Set(declared.map((d) => d.key));
  const out: string[] = [];
  for (const t of compiled) {
    if (t === undefined) continue;
    for (const name of t.variables) {
      if (!keys.has(name) && !isPetrelSuppliedVariable(name) && !out.includes(name)) out.push(name);
    }
  }
  return out;
}
