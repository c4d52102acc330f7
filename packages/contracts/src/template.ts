/**
 * Wire contract of the template endpoints, as Resend's API defines them: the zod schemas that
 * validate POST /templates and PATCH /templates/:idOrAlias bodies, and the shapes GET returns.
 *
 * Variable declaration rules: key of ASCII letters, digits and underscore, 1..50 characters, not
 * reserved (RESERVED_VARIABLES), unique within the template; at most 50 declarations; a
 * fallback_value, when not null, has the declared type; a string fallback has at most 2,000
 * characters (code points); a number fallback is finite with |n| ≤ 2^53 - 1 (the same bounds the send
 * validation applies to values).
 *
 * Optional string fields accept `null` as "not set" (create) or "clear" (update), so a client can
 * send back what GET returned. `reply_to` is normalised to an array.
 */
import { z } from 'zod';
import { formatIssue } from './errors.js';
import { HEADER_UNSAFE, LIMITS, RESERVED_VARIABLES, VARIABLE_KEY_PATTERN } from './limits.js';
import { uniqueItems } from './unique-items.js';

/** Field limits of the template resource not named by the spec (Petrel's choice). */
export const TEMPLATE_LIMITS = {
  nameLength: 256,
  aliasLength: 64,
} as const;

/** Template alias: a slug that starts with a letter or digit, then letters, digits, `-`, `_`, `.`. */
export const TEMPLATE_ALIAS_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Aliases may not look like ids, so `GET /templates/:idOrAlias` is never ambiguous. */
const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Length in characters (code points), so an emoji counts once: template declarations and send values. */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export const templateVariableTypeSchema = z.enum(['string', 'number'], "type must be 'string' or 'number'");
export type TemplateVariableType = z.infer<typeof templateVariableTypeSchema>;

const fallbackValueSchema = z.union(
  [z.string(), z.number()],
  'fallback_value must be a string, a number or null',
);

/** One declared variable: `{ key, type, fallback_value? }`. */
export const templateVariableSchema = z
  .object({
    key: z
      .string('key is required and must be a string')
      .min(1, { error: 'key must not be empty', abort: true })
      .max(LIMITS.variableKeyLength, `key has at most ${LIMITS.variableKeyLength} characters`)
      .regex(VARIABLE_KEY_PATTERN, 'key may contain only ASCII letters, digits and underscore')
      .refine((k) => !RESERVED_VARIABLES.has(k), {
        error: (iss) => `key '${String(iss.input)}' is reserved`,
      }),
    type: templateVariableTypeSchema,
    fallback_value: fallbackValueSchema.nullable().optional(),
  })
  .superRefine((v, ctx) => {
    const f = v.fallback_value;
    const issue = (message: string): void =>
      ctx.addIssue({ code: 'custom', path: ['fallback_value'], message });
    if (f === undefined || f === null) return;
    if (typeof f !== v.type) issue(`fallback_value must be a ${v.type}, as the declared type`);
    else if (typeof f === 'string' && codePointLength(f) > LIMITS.variableStringLength) {
      issue(`a string fallback_value has at most ${LIMITS.variableStringLength} characters`);
    } else if (typeof f === 'number' && Math.abs(f) > LIMITS.variableNumberMax) {
      issue('a number fallback_value lies between -(2^53 - 1) and 2^53 - 1');
    }
  });
export type TemplateVariableInput = z.infer<typeof templateVariableSchema>;

/** The `variables` array: at most 50, keys unique. */
export const templateVariablesSchema = z
  .array(templateVariableSchema)
  .max(LIMITS.variablesPerTemplate, `a template declares at most ${LIMITS.variablesPerTemplate} variables`)
  .superRefine(uniqueItems('key', (key, seen) => `duplicate key '${key}' (also variables[${seen}].key)`));

const nameSchema = z
  .string('name must be a string')
  .max(TEMPLATE_LIMITS.nameLength, `name has at most ${TEMPLATE_LIMITS.nameLength} characters`)
  .refine((s) => s.trim().length > 0, 'name must not be empty');

const aliasSchema = z
  .string('alias must be a string')
  .min(1, 'alias must not be empty')
  .max(TEMPLATE_LIMITS.aliasLength, `alias has at most ${TEMPLATE_LIMITS.aliasLength} characters`)
  .regex(
    TEMPLATE_ALIAS_PATTERN,
    'alias may contain only letters, digits, -, _ and ., and must start with a letter or digit',
  )
  .refine((s) => !UUID_SHAPE.test(s), 'alias must not have the shape of an id');

const subjectSchema = z
  .string('subject must be a string')
  .refine((s) => !HEADER_UNSAFE.test(s), 'subject must not contain line breaks or control characters');

const replyToSchema = z
  .union(
    [
      z.string().min(1, 'reply_to must not be empty'),
      z.array(z.string().min(1, 'reply_to must not be empty')),
    ],
    'reply_to must be a string or an array of strings',
  )
  .transform((r) => (typeof r === 'string' ? [r] : r));

const templateFields = {
  subject: subjectSchema.nullable().optional(),
  text: z.string('text must be a string').nullable().optional(),
  alias: aliasSchema.nullable().optional(),
  from: z.string('from must be a string').min(1, 'from must not be empty').nullable().optional(),
  reply_to: replyToSchema.nullable().optional(),
  variables: templateVariablesSchema.nullable().optional(),
};

/** POST /templates. Unknown keys are dropped. */
export const createTemplateSchema = z.object({
  name: nameSchema,
  html: z.string('html is required and must be a string'),
  ...templateFields,
});
export type CreateTemplateInput = z.infer<typeof createTemplateSchema>;

/**
 * PATCH /templates/:idOrAlias. Every key optional; a key present replaces the stored value
 * (`variables` replaces the whole list), `null` clears an optional field.
 */
export const updateTemplateSchema = z.object({
  name: nameSchema.optional(),
  html: z.string('html must be a string').optional(),
  ...templateFields,
});
export type UpdateTemplateInput = z.infer<typeof updateTemplateSchema>;

/**
 * Validate a `variables` array on its own (e.g. when the route needs one message per rule).
 *
 * @returns one message per broken rule, each prefixed with its path (`variables[1].key: …`);
 *   empty when valid.
 */
export function validateTemplateVariables(vars: unknown): string[] {
  const parsed = templateVariablesSchema.safeParse(vars);
  if (parsed.success) return [];
  return parsed.error.issues.map((iss) => formatIssue(iss, { prefix: ['variables'] }));
}

export type TemplateStatus = 'draft' | 'published';

/** A declared variable as GET returns it. */
export interface TemplateVariableRecord {
  id: string;
  key: string;
  type: TemplateVariableType;
  fallback_value: string | number | null;
  created_at: string;
  updated_at: string;
}

/** The versioned content of a template (what a version stores and a record shows). */
export interface TemplateContent {
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text: string | null;
  variables: TemplateVariableRecord[];
}

/** GET /templates/:idOrAlias. Petrel always returns `variables` as an array (`[]` when none). */
export interface TemplateRecord extends TemplateContent {
  object: 'template';
  id: string;
  current_version_id: string;
  alias: string | null;
  name: string;
  created_at: string;
  updated_at: string;
  status: TemplateStatus;
  published_at: string | null;
  has_unpublished_versions: boolean;
}

/** One item of GET /templates. */
export type TemplateListItem = Pick<
  TemplateRecord,
  'id' | 'name' | 'status' | 'published_at' | 'created_at' | 'updated_at' | 'alias'
>;

/** Response of create, update, publish and duplicate. */
export interface TemplateRefResponse {
  object: 'template';
  id: string;
}

/** Response of DELETE /templates/:idOrAlias. */
export interface TemplateDeletedResponse {
  object: 'template';
  id: string;
  deleted: true;
}
