/**
 * Wire schemas of POST /topics and PATCH /topics/:id (Resend's topics API,
 * https://resend.com/docs/api-reference/topics). Issues are rendered by the one formatter of
 * contracts (`<field>: <rule>`), like every other 422.
 *
 * Unknown keys are dropped, as the template schemas do: the SDK's `topics.create` spreads
 * whatever extra keys its caller passed into the body, so refusing them would break callers that
 * work against Resend.
 */
import { AUDIENCE_LIMITS, SUBSCRIPTIONS, TOPIC_VISIBILITIES } from '@petrel/contracts';
import { z } from 'zod';
import { requiredOr, stringWith } from '../../validation/checks.js';
import { MSG } from '../../validation/rules.js';

export const TOPIC_RULES = {
  subscription: `must be one of ${SUBSCRIPTIONS.map((s) => `'${s}'`).join(', ')}`,
  visibility: `must be one of ${TOPIC_VISIBILITIES.map((s) => `'${s}'`).join(', ')}`,
  /** Resend: `default_subscription` "cannot be changed after creation". */
  immutableDefault: 'cannot be changed after the topic is created (create a new topic instead)',
  idMismatch: 'must be the id of the topic in the path',
} as const;

const nameRule = (value: string): string | undefined =>
  value.trim() === ''
    ? MSG.nonEmpty
    : value.length > AUDIENCE_LIMITS.topicName
      ? MSG.maxChars(AUDIENCE_LIMITS.topicName)
      : undefined;

const descriptionRule = (value: string): string | undefined =>
  value.length > AUDIENCE_LIMITS.topicDescription
    ? MSG.maxChars(AUDIENCE_LIMITS.topicDescription)
    : undefined;

const subscription = z.enum(SUBSCRIPTIONS, { error: requiredOr(TOPIC_RULES.subscription) });
const visibility = z.enum(TOPIC_VISIBILITIES, { error: TOPIC_RULES.visibility });
const description = stringWith(descriptionRule);

/** POST /topics: `name` and `default_subscription` are required; `visibility` defaults to private. */
export const createTopicSchema = z.object({
  name: stringWith(nameRule, requiredOr(MSG.string)),
  default_subscription: subscription,
  description: description.nullish(),
  visibility: visibility.nullish(),
});
export type CreateTopicInput = z.infer<typeof createTopicSchema>;

/**
 * PATCH /topics/:id. The SDK sends its whole payload, `id` included; `default_subscription` is
 * accepted only with the value the topic has (the use-case checks). `description: null` clears it.
 */
export const updateTopicSchema = z.object({
  id: z.string(MSG.string).optional(),
  name: stringWith(nameRule).optional(),
  description: description.nullable().optional(),
  visibility: visibility.optional(),
  default_subscription: subscription.optional(),
});
export type UpdateTopicInput = z.infer<typeof updateTopicSchema>;
