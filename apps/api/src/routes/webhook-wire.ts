/** Webhook endpoints, their event log and attempts in the wire shapes of Resend's webhooks API. */
import type { WebhookAttempt, WebhookEndpoint, WebhookEventEntry } from '@petrel/core';

/** A webhook in a list (GET /webhooks): no secret, as Resend lists them. */
export const webhookListItem = (w: WebhookEndpoint) => ({
  id: w.id,
  endpoint: w.endpoint,
  created_at: w.created_at,
  status: w.status,
  events: w.events,
});

/** GET /webhooks/:id: the endpoint with its signing secret. */
export const webhookWire = (w: WebhookEndpoint) => ({
  object: 'webhook',
  ...webhookListItem(w),
  signing_secret: w.secret,
});

/** An event of the log in a list. */
export const webhookEventItem = ({ id, type, created_at, status }: WebhookEventEntry) => ({
  id,
  type,
  created_at,
  status,
});

/** GET /webhooks/:id/events/:eventId: the event, its next attempt and the body every attempt sends. */
export const webhookEventWire = (e: WebhookEventEntry) => ({
  object: 'webhook_event',
  ...webhookEventItem(e),
  next_attempt_at: e.next_attempt_ms === null ? null : new Date(e.next_attempt_ms).toISOString(),
  payload: JSON.parse(e.payload) as unknown,
});

/** An attempt in a list (without its latency). */
export const webhookAttemptItem = ({ id, http_status_code, response, sent_at }: WebhookAttempt) => ({
  id,
  http_status_code,
  response,
  sent_at,
});
