/**
 * The form fields of POST /contacts/imports besides the file, parsed and checked: `column_map`,
 * `segments` and `topics` arrive as JSON strings (the SDK JSON-encodes them into the multipart
 * body), `on_conflict` as a plain string. A broken rule is a 422 naming the field
 * (`column_map.properties.plan.type: …`), formatted by the one formatter of contracts.
 */
import { z } from 'zod';
import {
  AUDIENCE_LIMITS,
  SUBSCRIPTIONS,
  formatIssues,
  unknownFieldsRule,
  validationError,
  type ValidationIssue,
} from '@petrel/contracts';
import { IMPORT_PROPERTY_TYPES, type ContactImportOptions, type ImportColumnMap } from './ports.js';
import type { ImportConflict } from '../ports.js';

/** The form fields an import takes besides `file`. */
export const IMPORT_FORM_FIELDS = ['column_map', 'on_conflict', 'segments', 'topics'] as const;

/**
 * `on_conflict` when the request has none: `skip`, as Resend's OpenAPI documents
 * (CreateContactImportOptions.on_conflict, `default: skip`) — an import never overwrites a
 * contact unless asked to.
 */
export const DEFAULT_ON_CONFLICT: ImportConflict = 'skip';

/** Contact fields and the column each is read from when the request has no `column_map`. */
export const DEFAULT_COLUMNS = {
  email: 'email',
  first_name: 'first_name',
  last_name: 'last_name',
  unsubscribed: 'unsubscribed',
} as const;

/** Bounds of the option lists (each segment / topic is applied to every row). */
export const IMPORT_OPTION_LIMITS = { segments: 100, topics: 100, properties: 100, columnName: 256 } as const;

const column = z
  .string({ error: 'must be a string (a column name of the CSV header)' })
  .trim()
  .min(1, 'must not be empty')
  .max(IMPORT_OPTION_LIMITS.columnName, `must be at most ${IMPORT_OPTION_LIMITS.columnName} characters`);

const propertyKey = z
  .string()
  .regex(/^[A-Za-z0-9_]+$/, 'must be letters, digits and underscores')
  .max(AUDIENCE_LIMITS.propertyKey, `must be at most ${AUDIENCE_LIMITS.propertyKey} characters`);

const columnMapSchema = z.strictObject(
  {
    email: column.optional(),
    first_name: column.optional(),
    last_name: column.optional(),
    unsubscribed: column.optional(),
    properties: z
      .record(
        propertyKey,
        z.strictObject({
          column,
          type: z
            .enum(IMPORT_PROPERTY_TYPES, { error: `must be one of ${IMPORT_PROPERTY_TYPES.join(', ')}` })
            .optional(),
        }),
      )
      .refine((p) => Object.keys(p).length <= IMPORT_OPTION_LIMITS.properties, {
        message: `must map at most ${IMPORT_OPTION_LIMITS.properties} properties`,
      })
      .optional(),
  },
  { error: 'must be a JSON object' },
);

// Ids are UUIDs (newId), stored in lower case: an upper-case spelling names the same resource.
const id = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(256)
  .transform((s) => s.toLowerCase());

const segmentsSchema = z
  .array(z.strictObject({ id }, { error: 'must be an object { id }' }), { error: 'must be a JSON array' })
  .max(IMPORT_OPTION_LIMITS.segments, `must have at most ${IMPORT_OPTION_LIMITS.segments} items`);

const topicsSchema = z
  .array(
    z.strictObject(
      { id, subscription: z.enum(SUBSCRIPTIONS, { error: `must be one of ${SUBSCRIPTIONS.join(', ')}` }) },
      { error: 'must be an object { id, subscription }' },
    ),
    { error: 'must be a JSON array' },
  )
  .max(IMPORT_OPTION_LIMITS.topics, `must have at most ${IMPORT_OPTION_LIMITS.topics} items`);

const onConflictSchema = z.enum(['upsert', 'skip'], { error: 'must be one of upsert, skip' });

/**
 * The options as the request gave them: `columnMap` null when it had none (the columns are then
 * found in the file's header by their default names, see resolveColumnMap).
 */
export type ParsedImportOptions = Omit<ContactImportOptions, 'columnMap'> & {
  columnMap: ImportColumnMap | null;
};

/** Parses one JSON-encoded field with `schema`; issues carry the field name as their first step. */
function jsonField<S extends z.ZodType>(
  name: string,
  raw: string,
  schema: S,
  issues: ValidationIssue[],
): z.infer<S> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    issues.push({ path: [name], message: 'must be a JSON-encoded value' });
    return undefined;
  }
  const res = schema.safeParse(value);
  if (res.success) return res.data;
  for (const issue of res.error.issues) issues.push({ ...issue, path: [name, ...issue.path] });
  return undefined;
}

/** Ids that appear more than once, in `field[i].id` form for the message. */
function duplicateIds(field: string, items: readonly { id: string }[], issues: ValidationIssue[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (seen.has(item.id)) issues.push({ path: [field, i, 'id'], message: 'is given twice' });
    seen.add(item.id);
  });
}

/**
 * The import options from the form fields (each at most once; absent = the default). Throws a
 * 422 `validation_error` naming every broken field (up to the formatter's limit).
 */
export function parseImportOptions(fields: Readonly<Record<string, string>>): ParsedImportOptions {
  const issues: ValidationIssue[] = [];
  const unknown = Object.keys(fields).filter((k) => !(IMPORT_FORM_FIELDS as readonly string[]).includes(k));
  if (unknown.length > 0) issues.push({ path: [], message: unknownFieldsRule(unknown) });

  const rawMap = fields.column_map;
  const map = rawMap === undefined ? undefined : jsonField('column_map', rawMap, columnMapSchema, issues);
  const segments =
    fields.segments === undefined ? [] : jsonField('segments', fields.segments, segmentsSchema, issues);
  const topics = fields.topics === undefined ? [] : jsonField('topics', fields.topics, topicsSchema, issues);
  let onConflict: ImportConflict = DEFAULT_ON_CONFLICT;
  if (fields.on_conflict !== undefined) {
    const res = onConflictSchema.safeParse(fields.on_conflict);
    if (res.success) onConflict = res.data;
    else issues.push({ path: ['on_conflict'], message: 'must be one of upsert, skip' });
  }
  if (segments) duplicateIds('segments', segments, issues);
  if (topics) duplicateIds('topics', topics, issues);
  if (issues.length > 0) throw validationError(formatIssues(issues));

  const columnMap: ImportColumnMap | null = map
    ? {
        email: map.email ?? DEFAULT_COLUMNS.email,
        ...(map.first_name !== undefined && { first_name: map.first_name }),
        ...(map.last_name !== undefined && { last_name: map.last_name }),
        ...(map.unsubscribed !== undefined && { unsubscribed: map.unsubscribed }),
        properties: { ...map.properties },
      }
    : null;
  return {
    columnMap,
    onConflict,
    segments: (segments ?? []).map((s) => s.id),
    topics: topics ?? [],
  };
}
