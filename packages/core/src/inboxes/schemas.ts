/**
 * Wire schemas of the inbox routes (the SDK's `resend.inboxes.*`, resend 6.38; bodies in snake
 * case as the SDK sends them). Issues are rendered by the one formatter of contracts
 * (`<field>: <rule>`). Unknown keys are dropped, as the other resources' schemas do: the SDK
 * sends `undefined` members it was not given, and extra keys some callers spread.
 */
import {
  INBOX_AGENT_ACTIONS,
  INBOX_AGENT_TONES,
  INBOX_LIMITS,
  INBOX_MESSAGE_FOLDERS,
  MOVE_THREAD_FOLDERS,
} from '@petrel/contracts';
import { z } from 'zod';
import { headerSafe, requiredOr, stringWith } from '../validation/checks.js';
import { MSG } from '../validation/rules.js';

const oneOf = (values: readonly string[]) => `must be one of ${values.map((v) => `'${v}'`).join(', ')}`;

export const INBOX_RULES = {
  folder: oneOf(MOVE_THREAD_FOLDERS),
  folders: `must be a comma-separated list of ${INBOX_MESSAGE_FOLDERS.join(', ')}`,
  color: "must be a hex colour '#RRGGBB'",
  tone: oneOf(INBOX_AGENT_TONES),
  action: oneOf(INBOX_AGENT_ACTIONS),
  labels: `must be an array of 1 to ${INBOX_LIMITS.labelsPerRequest} label ids`,
  labelsSet: `must be an array of at most ${INBOX_LIMITS.labelsPerThread} label ids`,
  atLeastOne: (fields: string) => `at least one of ${fields} is required`,
  boolean: "must be 'true' or 'false'",
  notReceiving: (domains: readonly string[]) =>
    domains.length === 0
      ? 'must be at one of the team’s receiving domains (a verified domain, or INBOUND_DOMAINS), and the team has none'
      : `must be at one of the team’s receiving domains (${domains.join(', ')})`,
  taken: 'an inbox with this address exists already',
  unknownLabel: (id: string) => `no label ${id} in this inbox`,
} as const;

const text = (max: number) =>
  stringWith((v) => (v.trim() === '' ? MSG.nonEmpty : v.length > max ? MSG.maxChars(max) : undefined));

const headerText = (max: number) =>
  stringWith((v) =>
    v.trim() === ''
      ? MSG.nonEmpty
      : v.length > max
        ? MSG.maxChars(max)
        : headerSafe(v)
          ? undefined
          : MSG.headerUnsafe,
  );

/** POST /inboxes. */
export const createInboxSchema = z.object({
  email_address: z.string({ error: requiredOr(MSG.string) }),
  name: headerText(INBOX_LIMITS.nameChars).nullish(),
  from_name: headerText(INBOX_LIMITS.nameChars).nullish(),
  forwarding: z.boolean({ error: 'must be a boolean' }).nullish(),
});
export type CreateInboxInput = z.infer<typeof createInboxSchema>;

/** PATCH /inboxes/:idOrEmail. */
export const updateInboxSchema = z
  .object({
    name: headerText(INBOX_LIMITS.nameChars).nullish(),
    from_name: headerText(INBOX_LIMITS.nameChars).nullish(),
  })
  .refine((v) => v.name != null || v.from_name != null, {
    error: INBOX_RULES.atLeastOne('name, from_name'),
  });
export type UpdateInboxInput = z.infer<typeof updateInboxSchema>;

const color = z.string({ error: INBOX_RULES.color }).regex(/^#[0-9a-fA-F]{6}$/, { error: INBOX_RULES.color });

/** POST /inboxes/:x/labels. */
export const createLabelSchema = z.object({
  name: text(INBOX_LIMITS.labelNameChars).and(z.string({ error: requiredOr(MSG.string) })),
  color: color.nullish(),
});
export type CreateLabelInput = z.infer<typeof createLabelSchema>;

/** PATCH /inboxes/:x/labels/:labelId. */
export const updateLabelSchema = z
  .object({ name: text(INBOX_LIMITS.labelNameChars).nullish(), color: color.nullish() })
  .refine((v) => v.name != null || v.color != null, {
    error: INBOX_RULES.atLeastOne('name, color'),
  });
export type UpdateLabelInput = z.infer<typeof updateLabelSchema>;

/** PATCH /inboxes/:x/threads/:threadId. */
export const updateThreadSchema = z
  .object({
    read: z.boolean({ error: 'must be a boolean' }).nullish(),
    folder: z.enum(MOVE_THREAD_FOLDERS, { error: INBOX_RULES.folder }).nullish(),
  })
  .refine((v) => v.read != null || v.folder != null, {
    error: INBOX_RULES.atLeastOne('read, folder'),
  });
export type UpdateThreadInput = z.infer<typeof updateThreadSchema>;

const labelIds = (min: number, max: number, rule: string) =>
  z
    .array(z.string({ error: MSG.string }), { error: requiredOr(rule) })
    .min(min, { error: rule })
    .max(max, { error: rule });

/** POST (add) /inboxes/:x/threads/:t/labels. */
export const addThreadLabelsSchema = z.object({
  labels: labelIds(1, INBOX_LIMITS.labelsPerRequest, INBOX_RULES.labels),
});
/** PUT (set) /inboxes/:x/threads/:t/labels: an empty list clears them. */
export const setThreadLabelsSchema = z.object({
  labels: labelIds(0, INBOX_LIMITS.labelsPerThread, INBOX_RULES.labelsSet),
});

/** PATCH /inboxes/:x/agent. */
export const updateAgentSchema = z
  .object({
    instructions: z
      .string({ error: MSG.string })
      .max(INBOX_LIMITS.instructionsChars, { error: MSG.maxChars(INBOX_LIMITS.instructionsChars) })
      .nullish(),
    tone: z.enum(INBOX_AGENT_TONES, { error: INBOX_RULES.tone }).nullish(),
    actions: z
      .array(z.enum(INBOX_AGENT_ACTIONS, { error: INBOX_RULES.action }), { error: MSG.array })
      .optional(),
  })
  .refine((v) => v.instructions !== undefined || v.tone !== undefined || v.actions !== undefined, {
    error: INBOX_RULES.atLeastOne('instructions, tone, actions'),
  });
export type UpdateAgentInput = z.infer<typeof updateAgentSchema>;
