/**
 * The records of webhooks as the use-cases see them: an endpoint (Resend's "webhook"), the log
 * entry of one event for one endpoint, and one delivery attempt. Times the dispatcher computes
 * with are epoch milliseconds; times on the wire are ISO 8601 strings.
 */
import type { WebhookEventStatus } from '@petrel/contracts';

export type WebhookStatus = 'enabled' | 'disabled';

export interface WebhookEndpoint {
  id: string;
  /** The URL deliveries are POSTed to. */
  endpoint: string;
  /** Subscribed event types. */
  events: string[];
  status: WebhookStatus;
  created_at: string;
  /** `whsec_<base64 key>`: signs every delivery. */
  secret: string;
  /** The secret before the last rotation, still signing until `previous_secret_expires_ms`. */
  previous_secret: string | null;
  previous_secret_expires_ms: number | null;
  /** Start of the current run of failed attempts (ms), null while the endpoint answers 2xx. */
  failing_since_ms: number | null;
  /** Why the dispatcher disabled the endpoint (`gone`, `failing`), null when a user did or never. */
  disabled_reason: string | null;
}

/** A new endpoint: enabled, one secret, healthy. */
export function newWebhookEndpoint(fields: {
  id: string;
  endpoint: string;
  events: string[];
  created_at: string;
  secret: string;
}): WebhookEndpoint {
  return {
    ...fields,
    status: 'enabled',
    previous_secret: null,
    previous_secret_expires_ms: null,
    failing_since_ms: null,
    disabled_reason: null,
  };
}

/** One event in an endpoint's event log: the signed body is stored once, here. */
export interface WebhookEventEntry {
  /** The event id (the stream event's id). */
  id: string;
  type: string;
  created_at: string;
  status: WebhookEventStatus;
  /** When the next attempt is due (ms), null when none is scheduled. */
  next_attempt_ms: number | null;
  /** The exact JSON body every attempt sends: `{ type, created_at, data }`. */
  payload: string;
  /** Attempts of the current run (reset by a replay): the retry schedule's position. */
  run_attempts: number;
  /** Replays asked so far (each is a delivery job of its own). */
  replays: number;
}

/** A new entry: pending, nothing attempted, never replayed (what the event log writes). */
export function newWebhookEventEntry(
  fields: Pick<WebhookEventEntry, 'id' | 'type' | 'created_at' | 'payload'>,
): WebhookEventEntry {
  return {
    id: fields.id,
    type: fields.type,
    created_at: fields.created_at,
    status: 'pending',
    next_attempt_ms: null,
    payload: fields.payload,
    run_attempts: 0,
    replays: 0,
  };
}

/** One HTTP attempt, as GET /webhooks/:id/events/:eventId/attempts lists it. */
export interface WebhookAttempt {
  id: string;
  /** The response status, 0 when there was none (timeout, refused, connection error). */
  http_status_code: number;
  /** The response body (at most WEBHOOK_RESPONSE_MAX_BYTES) or the error. */
  response: string;
  sent_at: string;
  latency_ms: number;
}
