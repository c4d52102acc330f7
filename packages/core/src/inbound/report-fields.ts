/**
 * The field groups of the machine-readable part of a report: `message/delivery-status`
 * (RFC 3464 section 2.1: one per-message group, then one group per recipient, separated by blank
 * lines) and `message/feedback-report` (RFC 5965 section 3.1: one group). Both use the header
 * syntax of RFC 5322: `Name: value`, continued on lines that start with white space.
 */

/** One group: field names lower-cased, every value of a repeated field kept in order. */
export type FieldGroup = Map<string, string[]>;

/** Unfolds and splits `text` into its groups (empty groups dropped). */
export function fieldGroups(text: string): FieldGroup[] {
  const groups: FieldGroup[] = [];
  let current: FieldGroup = new Map();
  let last: { name: string; index: number } | null = null;
  const flush = () => {
    if (current.size > 0) groups.push(current);
    current = new Map();
    last = null;
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      flush();
      continue;
    }
    if (/^[ \t]/.test(line)) {
      if (last) {
        const values = current.get(last.name)!;
        values[last.index] = `${values[last.index]} ${line.trim()}`;
      }
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    const values = current.get(name) ?? [];
    values.push(value);
    current.set(name, values);
    last = { name, index: values.length - 1 };
  }
  flush();
  return groups;
}

/** The first value of `name` in `group`, or undefined. */
export function field(group: FieldGroup | undefined, name: string): string | undefined {
  return group?.get(name)?.[0];
}

/**
 * The address of a typed address field (`rfc822; user@example.com`, RFC 3464 section 2.3.2;
 * `utf-8;` for RFC 6533), without angle brackets; a value without a type is taken as it is.
 */
export function typedAddress(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const semi = value.indexOf(';');
  const address = (semi >= 0 ? value.slice(semi + 1) : value).trim().replace(/^<|>$/g, '').trim();
  return address === '' ? undefined : address;
}
