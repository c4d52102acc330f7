/**
 * Wire schemas of the contact, segment and contact-property endpoints (Resend's
 * https://resend.com/docs/api-reference/contacts, /segments, /contact-properties). They check
 * shapes only; the rules that need stored state (a property key is defined and its type matches,
 * a segment or topic exists, an email is free) are the use-cases'. Unknown keys are dropped, as
 * Resend does.
 */
import { z } from 'zod';
import {
  AUDIENCE_LIMITS,
  CONTACT_PROPERTY_TYPES,
  HEADER_UNSAFE,
  SUBSCRIPTIONS,
  uniqueItems,
} from '@petrel/contracts';

/** Property keys: ASCII letters, digits and underscore, case-sensitive (Resend's rule). */
export const PROPERTY_KEY_PATTERN = /^[A-Za-z0-9_]+$/;

/** A contact's first or last name; may end up in a display name, so no line breaks or controls. */
const nameSchema = z
  .string('must be a string or null')
  .max(AUDIENCE_LIMITS.contactName, `has at most ${AUDIENCE_LIMITS.contactName} characters`)
  .refine((s) => !HEADER_UNSAFE.test(s), 'must not contain line breaks or control characters');

const emailSchema = z.string('is required and must be a string').min(1, 'must not be empty');

/** `{ key: string | number | null }`; booleans pass the shape and are refused with the key's type. */
const propertyValuesSchema = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.null()], 'must be a string, a number or null'),
  'must be an object of property keys and values',
);

const subscriptionSchema = z.enum(SUBSCRIPTIONS, "must be 'opt_in' or 'opt_out'");

/** One `{ id, subscription }` of a contact's topics. */
export const topicChoiceSchema = z.object({
  id: z.string('is required and must be a string').min(1, 'must not be empty'),
  subscription: subscriptionSchema,
});

const topicChoicesSchema = z
  .array(topicChoiceSchema, 'must be an array of { id, subscription }')
  .superRefine(uniqueItems('id', (_id, seen) => `duplicate topic (also topics[${seen}].id)`));

/**
 * `segments` on create: `[{ id }]` as the SDK sends, or `["id"]` as Resend's OpenAPI describes;
 * normalised to ids.
 */
const segmentRefsSchema = z
  .array(
    z.union(
      [
        z.string().min(1, 'must not be empty'),
        z.object({ id: z.string('is required and must be a string').min(1, 'must not be empty') }),
      ],
      'must be a segment id or { id }',
    ),
    'must be an array of { id }',
  )
  .transform((refs) => [...new Set(refs.map((r) => (typeof r === 'string' ? r : r.id)))]);

/** POST /contacts (and POST /audiences/:id/contacts). */
export const createContactSchema = z.object({
  email: emailSchema,
  first_name: nameSchema.nullable().optional(),
  last_name: nameSchema.nullable().optional(),
  unsubscribed: z.boolean('must be a boolean').optional(),
  properties: propertyValuesSchema.optional(),
  segments: segmentRefsSchema.optional(),
  topics: topicChoicesSchema.optional(),
  /** Deprecated in Resend's OpenAPI, still accepted: the one segment (audience) to add it to. */
  audience_id: z.string('must be a string').min(1, 'must not be empty').optional(),
});
export type CreateContactInput = z.infer<typeof createContactSchema>;

/** PATCH /contacts/:c. `null` clears a name or removes a property; `email` may only repeat the stored one. */
export const updateContactSchema = z.object({
  email: emailSchema.optional(),
  first_name: nameSchema.nullable().optional(),
  last_name: nameSchema.nullable().optional(),
  unsubscribed: z.boolean('must be a boolean').optional(),
  properties: propertyValuesSchema.optional(),
});
export type UpdateContactInput = z.infer<typeof updateContactSchema>;

/**
 * PATCH /contacts/:c/topics: the SDK sends the bare array; `{ topics: [...] }` (Resend's OpenAPI)
 * is accepted too and read the same way.
 */
export const updateContactTopicsSchema = z.preprocess(
  (body) => (Array.isArray(body) ? { topics: body } : body),
  z.object({ topics: topicChoicesSchema }, 'must be an array of { id, subscription }'),
);
export type UpdateContactTopicsInput = z.infer<typeof updateContactTopicsSchema>;

const segmentNameSchema = z
  .string('is required and must be a string')
  .max(AUDIENCE_LIMITS.segmentName, `has at most ${AUDIENCE_LIMITS.segmentName} characters`)
  .refine((s) => s.trim().length > 0, 'must not be empty');

/** POST /segments, PATCH /segments/:id, POST /audiences. */
export const segmentSchema = z.object({ name: segmentNameSchema });
export type SegmentInput = z.infer<typeof segmentSchema>;

const fallbackSchema = z.union([z.string(), z.number()], 'must be a string, a number or null').nullable();

/** POST /contact-properties. The fallback, when set, has the declared type (checked in the use-case). */
export const createContactPropertySchema = z.object({
  key: z
    .string('is required and must be a string')
    .min(1, 'must not be empty')
    .max(AUDIENCE_LIMITS.propertyKey, `has at most ${AUDIENCE_LIMITS.propertyKey} characters`)
    .regex(PROPERTY_KEY_PATTERN, 'may contain only ASCII letters, digits and underscore'),
  type: z.enum(CONTACT_PROPERTY_TYPES, "must be 'string' or 'number'"),
  fallback_value: fallbackSchema.optional(),
});
export type CreateContactPropertyInput = z.infer<typeof createContactPropertySchema>;

/** PATCH /contact-properties/:id: only the fallback can change (key and type are fixed). */
export const updateContactPropertySchema = z.object({ fallback_value: fallbackSchema.optional() });
export type UpdateContactPropertyInput = z.infer<typeof updateContactPropertySchema>;
