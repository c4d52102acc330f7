/**
 * Wire contract of the events API (Resend's `/events`: named events an application sends for a
 * contact, which start or resume automations): the zod schemas of POST /events,
 * PATCH /events/:idOrName and POST /events/send, the definition's schema map, and the records
 * the store keeps.
 *
 * Naming rules (Petrel's, where Resend's documentation names none): 1..255 characters, no control
 * characters (C0, DEL, C1, U+2028/U+2029), no surrounding spaces, not the shape of a UUID (so
 * `GET /events/:idOrName` is never ambiguous) and not under the prefix `resend:`, which Resend
 * reserves (OpenAPI, CreateEventRequest). Names are case-sensitive: an automation's trigger
 * matches the name exactly.
 *
 * Unknown body keys are dropped, as the other resources' schemas do: the SDK passes whatever its
 * caller put in the options.
 */
import { z } from 'zod';

/** The value types an event's schema may declare (Resend's `EventSchemaType`). */
export const EVENT_SCHEMA_TYPES = ['string', 'number', 'boolean', 'date'] as const;
export type EventSchemaType = (typeof EVENT_SCHEMA_TYPES)[number];
/** A flat field → type map (Resend's `EventSchemaMap`). */
export type EventSchemaMap = Readonly<Record<string, EventSchemaType>>;

/** Bounds of the events API (Petrel's choices; named once, referenced by code, docs and tests). */
export const CUSTOM_EVENT_LIMITS = {
  /** Characters (code points) of an event name. */
  nameLength: 255,
  /** Fields one schema declares. */
  schemaFields: 50,
  /** Characters of a schema field name. */
  schemaFieldLength: 64,
  /** Bytes of a send's payload as JSON: every received event is recorded and travels in a job. */
  payloadBytes: 32 * 1024,
  /**
   * Nesting levels of a send's payload (objects and arrays). JSON.parse accepts any depth, but
   * serialising a few thousand levels overflows the stack: the bound comes first.
   */
  payloadDepth: 32,
} as const;

/** Resend reserves this prefix for its own events (OpenAPI, CreateEventRequest.name). */
export const RESERVED_EVENT_PREFIX = 'resend:';

/**
 * A schema field name: a letter or underscore, then letters, digits and underscores, so an
 * automation can name it as `event.<field>` without quoting.
 */
export const EVENT_FIELD_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const UUID_SHAPE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** The broken naming rule of `name`, or undefined (see the header). */
export function eventNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if ([...name].length > CUSTOM_EVENT_LIMITS.nameLength)
    return `at most ${CUSTOM_EVENT_LIMITS.nameLength} characters`;
  if (CONTROL_CHARS.test(name)) return 'must not contain control characters';
  if (name.trim() !== name) return 'must not start or end with spaces';
  if (UUID_SHAPE.test(name)) return 'must not have the shape of an id (UUID)';
  if (name.toLowerCase().startsWith(RESERVED_EVENT_PREFIX))
    return `must not start with the reserved prefix \`${RESERVED_EVENT_PREFIX}\``;
  return undefined;
}

const absentOr =
  (rule: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined || issue.input === null ? 'is required' : rule;

/** An event name, checked by {@link eventNameProblem}. */
export const eventNameSchema = z.string({ error: absentOr('must be a string') }).check((payload) => {
  const broken = eventNameProblem(payload.value);
  if (broken !== undefined)
    payload.issues.push({ code: 'custom', message: broken, input: payload.value, path: [], continue: true });
});

const SCHEMA_TYPE_RULE = `must be one of ${EVENT_SCHEMA_TYPES.map((t) => `'${t}'`).join(', ')}`;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A schema map: at most {@link CUSTOM_EVENT_LIMITS.schemaFields} fields named by
 * {@link EVENT_FIELD_PATTERN}, each typed with one of {@link EVENT_SCHEMA_TYPES}. A custom check
 * (not `z.record`): the keys are user data, `__proto__` included, and the result has a null
 * prototype.
 */
export const eventSchemaMapSchema = z
  .custom<Record<string, unknown>>(isPlainObject, { error: 'must be an object of field → type, or null' })
  .transform((map, ctx) => {
    const out: Record<string, EventSchemaType> = Object.create(null) as Record<string, EventSchemaType>;
    const keys = Object.keys(map);
    if (keys.length > CUSTOM_EVENT_LIMITS.schemaFields) {
      ctx.addIssue({ code: 'custom', message: `at most ${CUSTOM_EVENT_LIMITS.schemaFields} fields` });
      return z.NEVER;
    }
    for (const key of keys) {
      const type = map[key];
      let rule: string | undefined;
      if (key.length > CUSTOM_EVENT_LIMITS.schemaFieldLength)
        rule = `field name has at most ${CUSTOM_EVENT_LIMITS.schemaFieldLength} characters`;
      else if (!EVENT_FIELD_PATTERN.test(key))
        rule = 'field name must start with a letter or underscore, then letters, digits or underscores';
      else if (typeof type !== 'string' || !(EVENT_SCHEMA_TYPES as readonly string[]).includes(type))
        rule = SCHEMA_TYPE_RULE;
      if (rule !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: rule });
        return z.NEVER;
      }
      out[key] = type as EventSchemaType;
    }
    return out as EventSchemaMap;
  });

/** POST /events. */
export const createEventSchema = z.object({
  name: eventNameSchema,
  schema: eventSchemaMapSchema.nullish(),
});
export type CreateEventInput = z.infer<typeof createEventSchema>;

/** PATCH /events/:idOrName: `schema` is required; `null` clears it (OpenAPI, UpdateEventRequest). */
export const updateEventSchema = z.object({
  schema: eventSchemaMapSchema.nullable(),
});
export type UpdateEventInput = z.infer<typeof updateEventSchema>;

/**
 * POST /events/send. `null` counts as absent for `contact_id`, `email` and `payload`; the rule
 * "exactly one of contact_id and email" is the use-case's (it names both fields).
 */
export const sendEventSchema = z.object({
  event: eventNameSchema,
  contact_id: z.string('must be a string').nullish(),
  email: z.string('must be a string').nullish(),
  payload: z.custom<Record<string, unknown>>(isPlainObject, { error: 'must be an object' }).nullish(),
});
export type SendEventInput = z.infer<typeof sendEventSchema>;

/** An event definition as stored and read (`GET /events/:idOrName` adds `object: 'event'`). */
export interface CustomEventRecord {
  id: string;
  name: string;
  schema: EventSchemaMap | null;
  created_at: string;
  updated_at: string;
}

/**
 * One event received by `POST /events/send`, as recorded for the automation engine and the
 * dashboard (the team keeps the newest `RECEIVED_EVENTS_CAP` of them, see the store).
 */
export interface ReceivedEventRecord {
  id: string;
  name: string;
  contact_id: string;
  /** After coercion to the event's schema, when it has one. */
  payload: Record<string, unknown>;
  created_at: string;
}
