/**
 * Ports of the webhook use-cases: the store of endpoints and event logs (packages/store), the
 * delivery queue (packages/queue), the HTTP sender (apps/webhooks) and the clock.
 */
import type { AttemptOutcome } from './retry-decision.js';
import type { WebhookAttempt, WebhookEndpoint, WebhookEventEntry, WebhookStatus } from './types.js';

export interface WebhookPatch {
  endpoint?: string;
  events?: string[];
  status?: WebhookStatus;
}

/** A new event-log entry for one endpoint. */
export interface NewWebhookEvent {
  endpointId: string;
  id: string;
  type: string;
  created_at: string;
  payload: string;
}

/**
 * What `addEvents` found for one entry: `new` (written now, status pending: nothing has tried it
 * yet), `due` (there already and still pending or attempting: a re-read after a crash, whose
 * delivery must be queued again), `finished` (success or failed: nothing to do).
 */
export type AddedWebhookEvent = 'new' | 'due' | 'finished';

/** One delivery to enqueue: the job id is `webhookDeliveryJobId(eventId, endpointId, replay)`. */
export interface WebhookDeliveryJobSpec {
  teamId: string;
  endpointId: string;
  eventId: string;
  replay?: number;
  /** Run the job this much later (a retry's wait); at once when absent. */
  delayMs?: number;
}

/** The endpoint's health after an attempt, as the store writes it. */
export type HealthWrite =
  | { kind: 'healthy' }
  | { kind: 'failing'; sinceMs: number }
  | { kind: 'disable'; reason: string; sinceMs: number };

/** An attempt and what it decided, written in one step. */
export interface AttemptRecord {
  attempt: WebhookAttempt;
  status: 'success' | 'pending' | 'failed';
  nextAttemptMs: number | null;
  health: HealthWrite;
}

/** `disabled`: this attempt disabled the (enabled) endpoint; `gone`: endpoint or entry deleted. */
export type AttemptRecorded = 'recorded' | 'disabled' | 'gone';

export interface WebhooksPort {
  count(teamId: string): Promise<number>;
  /** Every endpoint of the team (at most WEBHOOK_MAX_ENDPOINTS_PER_TEAM). */
  all(teamId: string): Promise<WebhookEndpoint[]>;
  create(teamId: string, endpoint: WebhookEndpoint): Promise<void>;
  get(teamId: string, id: string): Promise<WebhookEndpoint | null>;
  /** Applies the patch; false when the endpoint is gone. Enabling clears `failing_since`. */
  update(teamId: string, id: string, patch: WebhookPatch): Promise<boolean>;
  delete(teamId: string, id: string): Promise<boolean>;
  /** Sets a new secret, the old one signing until `previousExpiresMs`; false when gone. */
  rotateSecret(teamId: string, id: string, secret: string, previousExpiresMs: number): Promise<boolean>;
}

export interface WebhookEventLogPort {
  /** Writes the entries that do not exist yet (status pending); returns what it found, per entry in order. */
  addEvents(teamId: string, entries: readonly NewWebhookEvent[], nowMs: number): Promise<AddedWebhookEvent[]>;
  getEvent(teamId: string, endpointId: string, eventId: string): Promise<WebhookEventEntry | null>;
  /**
   * Reads the endpoint and the entry in one step (one round trip per delivery instead of two).
   * With the endpoint enabled, marks the entry `attempting` unless it finished; with it gone or
   * disabled, marks the entry failed unless it succeeded. Returns both as they were before.
   */
  beginAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
  ): Promise<{ endpoint: WebhookEndpoint | null; entry: WebhookEventEntry | null }>;
  /**
   * Records an attempt and its consequences in one step: the event's status and next attempt,
   * the run's attempt count, the endpoint's health. Returns `disabled` when this call disabled
   * the endpoint (it was enabled before), `gone` when the endpoint or entry is gone.
   */
  recordAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
    record: AttemptRecord,
  ): Promise<AttemptRecorded>;
  /** Starts a replay: status pending, run attempts 0; returns the replay's number (1, 2, …). */
  startReplay(teamId: string, endpointId: string, eventId: string): Promise<number | null>;
}

export interface WebhookDeliveryQueuePort {
  /** Enqueues the deliveries (job id from `webhookDeliveryJobId`; an existing job is kept). */
  enqueue(jobs: readonly WebhookDeliveryJobSpec[]): Promise<void>;
}

/** One signed POST. */
export interface WebhookRequest {
  endpoint: string;
  headers: Record<string, string>;
  body: string;
}

/** The outcome of one POST, with the response body (truncated) and the latency. */
export type WebhookSendResult = AttemptOutcome & { responseBody: string; latencyMs: number };

export interface WebhookSender {
  send(req: WebhookRequest): Promise<WebhookSendResult>;
}
