/**
 * Wire contract of the automation endpoints (Resend's `/automations`): the zod schemas of
 * POST /automations and PATCH /automations/:id bodies, the per-type step configs, the condition
 * rule tree, and the shapes GET returns. The graph rules that need more than one field (one
 * trigger, connections naming existing steps, branches, no cycles) are checked by core
 * (`validateAutomationGraph`), which also applies the per-type config schemas below so each
 * message names its step (`steps[2].config.duration: …`).
 *
 * Config keys are the wire's snake_case ones: the SDK renames its camelCase options itself
 * (`eventName` → `event_name`, `segmentId` → `segment_id`, …).
 */
import { z } from 'zod';

export const AUTOMATION_LIMITS = {
  nameLength: 256,
  /** Resend's OpenAPI: 1..150 steps. */
  steps: 150,
  connections: 300,
  stepKeyLength: 100,
  eventNameLength: 256,
  fieldPathLength: 256,
  /** Depth of and/or nesting in a condition (a bound on recursion, not a Resend figure). */
  ruleDepth: 8,
  rulesPerGroup: 50,
  stringValueLength: 2_000,
  /** Longest delay or wait timeout: 30 days (Resend's documented maximum). */
  maxDurationMs: 30 * 24 * 3600 * 1000,
} as const;

export const AUTOMATION_STATUSES = ['enabled', 'disabled'] as const;
export type AutomationStatus = (typeof AUTOMATION_STATUSES)[number];

export const AUTOMATION_STEP_TYPES = [
  'trigger',
  'send_email',
  'delay',
  'wait_for_event',
  'condition',
  'contact_update',
  'contact_delete',
  'add_to_segment',
] as const;
export type AutomationStepType = (typeof AUTOMATION_STEP_TYPES)[number];

export const AUTOMATION_CONNECTION_TYPES = [
  'default',
  'condition_met',
  'condition_not_met',
  'timeout',
  'event_received',
] as const;
export type AutomationConnectionType = (typeof AUTOMATION_CONNECTION_TYPES)[number];

export const AUTOMATION_RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const;
export type AutomationRunStatus = (typeof AUTOMATION_RUN_STATUSES)[number];

export const AUTOMATION_RUN_STEP_STATUSES = [
  'pending',
  'running',
  'completed',
  'failed',
  'skipped',
  'waiting',
] as const;
export type AutomationRunStepStatus = (typeof AUTOMATION_RUN_STEP_STATUSES)[number];

export const CONDITION_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'starts_with',
  'ends_with',
  'exists',
  'is_empty',
] as const;
export type ConditionOperator = (typeof CONDITION_OPERATORS)[number];

/** A condition: one comparison, or an and/or group of conditions. */
export type ConditionRule =
  | { type: 'rule'; field: string; operator: ConditionOperator; value?: string | number | boolean | null }
  | { type: 'and' | 'or'; rules: ConditionRule[] };

/** A value read at run time: `{ "var": "event.plan" | "contact.first_name" | "wait_events.<event>.<field>" }`. */
export interface VarRef {
  var: string;
}

const VAR_PATH = /^(event|contact|wait_events)\.[^\s]+$/;

const fieldPath = z
  .string('must be a string')
  .min(1, 'must not be empty')
  .max(AUTOMATION_LIMITS.fieldPathLength, `has at most ${AUTOMATION_LIMITS.fieldPathLength} characters`)
  .regex(VAR_PATH, 'must start with event., contact. or wait_events.');

export const varRefSchema = z.strictObject({ var: fieldPath });

const shortString = z
  .string('must be a string')
  .max(AUTOMATION_LIMITS.stringValueLength, `has at most ${AUTOMATION_LIMITS.stringValueLength} characters`);

const NUMERIC = new Set<ConditionOperator>(['gt', 'gte', 'lt', 'lte']);
const TEXTUAL = new Set<ConditionOperator>(['contains', 'starts_with', 'ends_with']);
const UNARY = new Set<ConditionOperator>(['exists', 'is_empty']);

const singleRuleSchema = z
  .strictObject({
    type: z.literal('rule'),
    field: fieldPath,
    operator: z.enum(CONDITION_OPERATORS, `must be one of ${CONDITION_OPERATORS.join(', ')}`),
    value: z
      .union(
        [shortString, z.number().finite(), z.boolean(), z.null()],
        'must be a string, a number, a boolean or null',
      )
      .optional(),
  })
  .superRefine((r, ctx) => {
    const issue = (message: string): void => ctx.addIssue({ code: 'custom', path: ['value'], message });
    if (UNARY.has(r.operator)) {
      if (r.value !== undefined) issue(`must be absent with the operator ${r.operator}`);
    } else if (r.value === undefined) issue(`is required with the operator ${r.operator}`);
    else if (NUMERIC.has(r.operator) && typeof r.value !== 'number')
      issue(`must be a number with the operator ${r.operator}`);
    else if (TEXTUAL.has(r.operator) && typeof r.value !== 'string')
      issue(`must be a string with the operator ${r.operator}`);
  });

/**
 * The rule tree. Its depth is bounded by core's graph validation (AUTOMATION_LIMITS.ruleDepth),
 * which walks the parsed tree.
 */
export const conditionRuleSchema: z.ZodType<ConditionRule> = z.lazy(() =>
  z.discriminatedUnion(
    'type',
    [
      singleRuleSchema,
      z.strictObject({
        type: z.enum(['and', 'or']),
        rules: z
          .array(conditionRuleSchema, 'must be an array of rules')
          .min(1, 'must hold at least one rule')
          .max(AUTOMATION_LIMITS.rulesPerGroup, `holds at most ${AUTOMATION_LIMITS.rulesPerGroup} rules`),
      }),
    ],
    {
      error: (iss) =>
        (iss as { code?: string }).code === 'invalid_type'
          ? "must be a rule object ({ type: 'rule' | 'and' | 'or', … })"
          : "must be 'rule', 'and' or 'or'",
    },
  ),
) as z.ZodType<ConditionRule>;

const eventName = z
  .string('must be a string')
  .trim()
  .min(1, 'must not be empty')
  .max(AUTOMATION_LIMITS.eventNameLength, `has at most ${AUTOMATION_LIMITS.eventNameLength} characters`);

/** A duration as text; its syntax and bounds are checked by core's parseDuration. */
const durationText = z.string('must be a string').min(1, 'must not be empty').max(100, 'is too long');

const templateVariableValue = z.union(
  [
    shortString,
    z.number().finite(),
    z.boolean(),
    varRefSchema,
    z.record(z.string(), z.union([shortString, z.number().finite(), z.boolean()])),
    z.array(
      z.union([
        shortString,
        z.number().finite(),
        z.boolean(),
        z.record(z.string(), z.union([shortString, z.number().finite(), z.boolean()])),
      ]),
    ),
  ],
  'must be a string, a number, a boolean or { "var": "event.<field>" | "contact.<field>" }',
);

const nullableName = z.union([shortString, z.null(), varRefSchema], 'must be a string, null or { "var": … }');

/** Per-type config schemas (wire keys). */
export const STEP_CONFIG_SCHEMAS = {
  trigger: z.strictObject({ event_name: eventName }),
  delay: z.strictObject({ duration: durationText }),
  send_email: z.strictObject({
    template: z.strictObject({
      id: z.string('must be a string').min(1, 'must not be empty').max(256, 'is too long'),
      variables: z
        .record(z.string(), templateVariableValue, 'must be an object of variable values')
        .optional(),
    }),
    subject: shortString.optional(),
    from: shortString.optional(),
    reply_to: z.union([shortString, z.array(shortString)]).optional(),
    topic_id: z.string('must be a string').nullable().optional(),
  }),
  wait_for_event: z.strictObject({
    event_name: eventName,
    timeout: durationText.optional(),
    filter_rule: conditionRuleSchema.optional(),
  }),
  condition: conditionRuleSchema,
  contact_update: z.strictObject({
    first_name: nullableName.optional(),
    last_name: nullableName.optional(),
    unsubscribed: z.union([z.boolean(), varRefSchema], 'must be a boolean or { "var": … }').optional(),
    properties: z
      .record(
        z.string(),
        z.union(
          [shortString, z.number().finite(), z.boolean(), z.null(), varRefSchema],
          'must be a string, a number, a boolean, null or { "var": … }',
        ),
        'must be an object of property values',
      )
      .optional(),
  }),
  contact_delete: z.strictObject({}),
  add_to_segment: z.strictObject({ segment_id: z.string('must be a string').min(1, 'must not be empty') }),
} as const satisfies Record<AutomationStepType, z.ZodType>;

export type StepConfigs = { [T in AutomationStepType]: z.infer<(typeof STEP_CONFIG_SCHEMAS)[T]> };

/** A step as written: its config is checked per type by core, with the step's path. */
export const automationStepSchema = z.strictObject({
  key: z
    .string('is required and must be a string')
    .min(1, 'must not be empty')
    .max(AUTOMATION_LIMITS.stepKeyLength, `has at most ${AUTOMATION_LIMITS.stepKeyLength} characters`),
  type: z.enum(AUTOMATION_STEP_TYPES, `must be one of ${AUTOMATION_STEP_TYPES.join(', ')}`),
  config: z.record(z.string(), z.unknown(), 'is required and must be an object'),
});

export const automationConnectionSchema = z.strictObject({
  from: z.string('is required and must be a string').min(1, 'must not be empty'),
  to: z.string('is required and must be a string').min(1, 'must not be empty'),
  type: z
    .enum(AUTOMATION_CONNECTION_TYPES, `must be one of ${AUTOMATION_CONNECTION_TYPES.join(', ')}`)
    .optional(),
});

const nameSchema = z
  .string('is required and must be a string')
  .max(AUTOMATION_LIMITS.nameLength, `has at most ${AUTOMATION_LIMITS.nameLength} characters`)
  .refine((s) => s.trim().length > 0, 'must not be empty');

const stepsSchema = z
  .array(automationStepSchema, 'is required and must be an array')
  .min(1, 'must hold at least one step')
  .max(AUTOMATION_LIMITS.steps, `holds at most ${AUTOMATION_LIMITS.steps} steps`);
const connectionsSchema = z
  .array(automationConnectionSchema, 'is required and must be an array')
  .max(AUTOMATION_LIMITS.connections, `holds at most ${AUTOMATION_LIMITS.connections} connections`);

/** POST /automations. */
export const createAutomationSchema = z.strictObject({
  name: nameSchema,
  status: z.enum(AUTOMATION_STATUSES, "must be 'enabled' or 'disabled'").optional(),
  steps: stepsSchema,
  connections: connectionsSchema,
});
export type CreateAutomationInput = z.infer<typeof createAutomationSchema>;

/** PATCH /automations/:id: only the keys given; steps and connections travel together. */
export const updateAutomationSchema = z
  .strictObject({
    name: nameSchema.optional(),
    status: z.enum(AUTOMATION_STATUSES, "must be 'enabled' or 'disabled'").optional(),
    steps: stepsSchema.optional(),
    connections: connectionsSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if ((b.steps === undefined) !== (b.connections === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [b.steps === undefined ? 'steps' : 'connections'],
        message: 'is required when steps or connections are updated (they are replaced together)',
      });
    if (
      b.name === undefined &&
      b.status === undefined &&
      b.steps === undefined &&
      b.connections === undefined
    )
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give at least one of name, status, steps and connections',
      });
  });
export type UpdateAutomationInput = z.infer<typeof updateAutomationSchema>;

/** A validated step: its config parsed by the type's schema. */
export type AutomationStep = {
  [T in AutomationStepType]: { key: string; type: T; config: StepConfigs[T] };
}[AutomationStepType];

export interface AutomationConnection {
  from: string;
  to: string;
  type: AutomationConnectionType;
}

/** The graph of an automation: what a run executes (a run keeps the graph it started with). */
export interface AutomationGraph {
  steps: AutomationStep[];
  connections: AutomationConnection[];
}

/** GET /automations/:id. */
export interface AutomationRecord extends AutomationGraph {
  object: 'automation';
  id: string;
  name: string;
  status: AutomationStatus;
  created_at: string;
  updated_at: string;
}

export type AutomationListItem = Pick<
  AutomationRecord,
  'id' | 'name' | 'status' | 'created_at' | 'updated_at'
>;

/** One step of a run as GET /automations/:id/runs/:runId shows it. */
export interface AutomationRunStepRecord {
  key: string;
  type: AutomationStepType;
  status: AutomationRunStepStatus;
  output: Record<string, unknown> | null;
  error: Record<string, unknown> | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

export interface AutomationRunRecord {
  object: 'automation_run';
  id: string;
  status: AutomationRunStatus;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  steps: AutomationRunStepRecord[];
}

export type AutomationRunListItem = Pick<
  AutomationRunRecord,
  'id' | 'status' | 'started_at' | 'completed_at' | 'created_at'
>;
