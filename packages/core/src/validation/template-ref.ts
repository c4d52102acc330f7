/**
 * The `template` field of a send (spec 2.3, 2.4): the id or alias of a template and the variable
 * values. Whether the template exists, is published and gets every variable it uses is decided
 * when it is resolved, not here. Variable values are body content, not headers: newlines are fine.
 */
import type { TemplateRef } from '@petrel/contracts';
import { LIMITS, RESERVED_VARIABLES } from '@petrel/contracts';
import { assertHeaderSafe, assertKnownKeys, child, fail, isRecord, keyPath } from './field-error.js';
import { FIELD_HINTS, MSG, VARIABLE_KEY_PATTERN, VALIDATION_RULES } from './rules.js';

const TEMPLATE_FIELDS: ReadonlySet<string> = new Set(['id', 'variables']);

/** Reads a present, non-null `template`. */
export function readTemplate(value: unknown, path: string): TemplateRef {
  if (!isRecord(value)) fail(path, MSG.object);
  assertKnownKeys(value, TEMPLATE_FIELDS, FIELD_HINTS, path);
  const idPath = child(path, 'id');
  const id = value.id;
  if (id === undefined || id === null || id === '') fail(idPath, MSG.required);
  if (typeof id !== 'string' || id.length > VALIDATION_RULES.templateIdMaxLength) {
    fail(idPath, MSG.templateId);
  }
  assertHeaderSafe(id, idPath);
  return { id, variables: readVariables(value.variables, child(path, 'variables')) };
}

function readVariables(value: unknown, path: string): Record<string, string | number> {
  // A null-prototype map: a key such as `__proto__` or `constructor` stays plain data.
  const out = Object.create(null) as Record<string, string | number>;
  if (value === undefined || value === null) return out;
  if (!isRecord(value)) fail(path, MSG.object);
  const keys = Object.keys(value);
  if (keys.length > LIMITS.variablesPerTemplate) fail(path, MSG.tooManyVariables);
  for (const key of keys) {
    const v = value[key];
    const rule = variableRule(key, v);
    if (rule !== undefined) fail(keyPath(path, key), rule);
    out[key] = v as string | number;
  }
  return out;
}

/** The rule a variable entry breaks, or undefined when it is fine. */
function variableRule(key: string, v: unknown): string | undefined {
  if (key.length > LIMITS.variableKeyLength) return MSG.variableKeyLength;
  if (!VARIABLE_KEY_PATTERN.test(key)) return MSG.variableKeyCharset;
  if (RESERVED_VARIABLES.has(key)) return MSG.variableReserved;
  if (typeof v === 'string') {
    const max = LIMITS.variableStringLength;
    return v.length > max && codePoints(v) > max ? MSG.maxChars(max) : undefined;
  }
  if (typeof v === 'number') {
    return Number.isFinite(v) && Math.abs(v) <= LIMITS.variableNumberMax ? undefined : MSG.variableNumber;
  }
  return MSG.variableType;
}

/** Length in characters (code points), so an emoji counts once. */
function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}
