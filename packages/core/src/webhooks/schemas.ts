/**
 * Wire schemas of POST /webhooks and PATCH /webhooks/:id (Resend's webhooks API,
 * https://resend.com/docs/api-reference/webhooks). `events` items must be Resend event types;
 * an unknown one is named by its index (`events[2]: …`). Unknown keys are dropped, as the other
 * schemas do. Whether the endpoint's host may be reached is the use-case's check (it resolves).
 */
import { WEBHOOK_EVENT_TYPES } from '@petrel/contracts';
import { z } from 'zod';
import { requiredOr, stringWith } from '../validation/checks.js';
import { MSG } from '../validation/rules.js';
import { endpointUrlRule } from './endpoint-policy.js';
import { WEBHOOK_ENDPOINT_MAX_CHARS } from './policy.js';

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_EVENT_TYPES);

export const WEBHOOK_RULES = {
  eventType: 'must be a webhook event type, e.g. email.sent, email.delivered, contact.created',
  events: 'must be a non-empty array of webhook event types',
  status: "must be one of 'enabled', 'disabled'",
} as const;

const endpoint = stringWith(
  (v) =>
    v.length > WEBHOOK_ENDPOINT_MAX_CHARS ? MSG.maxChars(WEBHOOK_ENDPOINT_MAX_CHARS) : endpointUrlRule(v),
  requiredOr(MSG.string),
);

const eventType = stringWith((v) => (KNOWN.has(v) ? undefined : WEBHOOK_RULES.eventType));

const events = z
  .array(eventType, { error: requiredOr(WEBHOOK_RULES.events) })
  .min(1, { error: WEBHOOK_RULES.events })
  .transform((list) => [...new Set(list)]);

export const createWebhookSchema = z.object({ endpoint, events });
export type CreateWebhookInput = z.infer<typeof createWebhookSchema>;

export const updateWebhookSchema = z.object({
  endpoint: endpoint.optional(),
  events: events.optional(),
  status: z.enum(['enabled', 'disabled'], { error: WEBHOOK_RULES.status }).optional(),
});
export type UpdateWebhookInput = z.infer<typeof updateWebhookSchema>;
