/**
 * The `template` field of a send: the id or alias of a template and the variable
 * values. Whether the template exists, is published and gets every variable it uses is decided
 * when it is resolved, not here. Variable values are body content, not headers: newlines are fine.
 */
import { LIMITS, RESERVED_VARIABLES, VARIABLE_KEY_PATTERN, codePointLength } from '@petrel/contracts';
import { z } from 'zod';
import { headerSafe, requiredOr, stringWith, userKeyedMap } from './checks.js';
import { MSG, VALIDATION_RULES } from './rules.js';

/** The rule a variable entry breaks, or undefined when it is fine. */
function variableRule(key: string, value: unknown): string | undefined {
  if (key.length > LIMITS.variableKeyLength) return MSG.variableKeyLength;
  if (!VARIABLE_KEY_PATTERN.test(key)) return MSG.variableKeyCharset;
  if (RESERVED_VARIABLES.has(key)) return MSG.variableReserved;
  if (typeof value === 'string') {
    const max = LIMITS.variableStringLength;
    return value.length > max && codePointLength(value) > max ? MSG.maxChars(max) : undefined;
  }
  if (typeof value === 'number') {
    return Number.isFinite(value) && Math.abs(value) <= LIMITS.variableNumberMax
      ? undefined
      : MSG.variableNumber;
  }
  return MSG.variableType;
}

/** `variables`: key to string or number; `__proto__` or `constructor` is plain data. */
const variables = userKeyedMap<string | number>(variableRule, {
  maxKeys: LIMITS.variablesPerTemplate,
  rule: MSG.tooManyVariables,
});

/** A present, non-null `template`. */
export const templateRef = z.strictObject(
  {
    id: stringWith((id) => {
      if (id === '') return MSG.required;
      if (id.length > VALIDATION_RULES.templateIdMaxLength) return MSG.templateId;
      return headerSafe(id) ? undefined : MSG.headerUnsafe;
    }, requiredOr(MSG.templateId)),
    variables,
  },
  { error: MSG.object },
);
