/**
 * The rule for a contact's custom properties (Resend: "keys must already exist as contact
 * properties with matching type"): every key written is a defined property of the team, its
 * value has the property's type, a string holds at most 2,000 characters and a number is a safe
 * integer-range finite number (the bounds of template variables). A property's fallback value
 * obeys the same rule.
 *
 * Values are resolved to property ids: a contact stores its values under the property's id, so
 * deleting a property makes its values unreadable at once (no sweep over every contact), and a
 * property created later under the same key starts empty.
 */
import {
  AUDIENCE_LIMITS,
  LIMITS,
  codePointLength,
  fieldMessage,
  validationError,
  type ContactPropertyRecord,
  type ContactPropertyType,
  type ContactPropertyValue,
} from '@petrel/contracts';

/** What a property check needs of a definition. */
export type PropertyDefinition = Pick<ContactPropertyRecord, 'id' | 'key' | 'type'>;

/** Values as a client writes them: booleans pass the wire schema and are refused here by type. */
export type PropertyInput = Record<string, string | number | boolean | null>;

/** Why `value` is not a valid value of a property of type `type`, or undefined when it is. */
export function propertyValueProblem(type: ContactPropertyType, value: unknown): string | undefined {
  if (typeof value !== type) return `must be a ${type}, the property's type`;
  if (typeof value === 'string' && codePointLength(value) > AUDIENCE_LIMITS.propertyStringValue) {
    return `a string value has at most ${AUDIENCE_LIMITS.propertyStringValue} characters`;
  }
  if (typeof value === 'number' && !(Math.abs(value) <= LIMITS.variableNumberMax)) {
    return 'a number value lies between -(2^53 - 1) and 2^53 - 1';
  }
  return undefined;
}

/**
 * Checks `input` against the team's definitions and returns it keyed by property id; `null`
 * (remove the value) is kept as null. Throws a 422 naming the first bad key (`properties.plan: …`).
 */
export function resolvePropertyValues(
  input: PropertyInput,
  definitions: readonly PropertyDefinition[],
): Record<string, ContactPropertyValue | null> {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const out: Record<string, ContactPropertyValue | null> = {};
  for (const [key, value] of Object.entries(input)) {
    const def = byKey.get(key);
    if (!def) {
      throw validationError(
        fieldMessage(
          ['properties', key],
          'no such contact property (create it with POST /contact-properties)',
        ),
      );
    }
    if (value !== null) {
      const problem = propertyValueProblem(def.type, value);
      if (problem) throw validationError(fieldMessage(['properties', key], problem));
    }
    out[def.id] = value as ContactPropertyValue | null;
  }
  return out;
}
