/**
 * In-memory webhook ports for the core use-case tests: the endpoints, the event log (with the
 * store's rules: an entry is written once, `beginAttempt` leaves a finished entry alone, an
 * attempt updates the endpoint's health) and a delivery queue that dedupes by job id.
 */
import { webhookDeliveryJobId } from '@petrel/contracts';
import {
  guardAllows,
  newWebhookEventEntry,
  WEBHOOK_ENDPOINT_MACHINE,
  WEBHOOK_EVENT_MACHINE,
  type AddedWebhookEvent,
  type AttemptRecord,
  type AttemptRecorded,
  type NewWebhookEvent,
  type WebhookAttempt,
  type WebhookDeliveryJobSpec,
  type WebhookDeliveryQueuePort,
  type WebhookEndpoint,
  type WebhookEventEntry,
  type WebhookEventLogPort,
  type WebhookPatch,
  type WebhooksPort,
} from '@petrel/core';

export class MemoryWebhooks implements WebhooksPort, WebhookEventLogPort {
  readonly endpoints = new Map<string, WebhookEndpoint>();
  readonly entries = new Map<string, WebhookEventEntry>();
  readonly attempts = new Map<string, WebhookAttempt[]>();

  /** Endpoint ids match in any case, as the store's (it keys them in lower case). */
  private key = (teamId: string, id: string) => `${teamId}/${id.toLowerCase()}`;
  private entryKey = (teamId: string, endpointId: string, eventId: string) =>
    `${teamId}/${endpointId}/${eventId}`;

  async count(teamId: string): Promise<number> {
    return (await this.all(teamId)).length;
  }
  /** Newest first, as the store's creation-time index. */
  async all(teamId: string): Promise<WebhookEndpoint[]> {
    return [...this.endpoints.entries()]
      .filter(([k]) => k.startsWith(`${teamId}/`))
      .map(([, w]) => ({ ...w }))
      .reverse();
  }
  async create(teamId: string, w: WebhookEndpoint): Promise<void> {
    this.endpoints.set(this.key(teamId, w.id), { ...w });
  }
  async get(teamId: string, id: string): Promise<WebhookEndpoint | null> {
    const w = this.endpoints.get(this.key(teamId, id));
    return w ? { ...w } : null;
  }
  async update(teamId: string, id: string, patch: WebhookPatch): Promise<boolean> {
    const w = this.endpoints.get(this.key(teamId, id));
    if (!w) return false;
    Object.assign(w, patch);
    if (patch.status === 'enabled') Object.assign(w, { failing_since_ms: null, disabled_reason: null });
    return true;
  }
  async delete(teamId: string, id: string): Promise<boolean> {
    return this.endpoints.delete(this.key(teamId, id));
  }
  async rotateSecret(
    teamId: string,
    id: string,
    secret: string,
    previousExpiresMs: number,
  ): Promise<boolean> {
    const w = this.endpoints.get(this.key(teamId, id));
    if (!w) return false;
    Object.assign(w, { previous_secret: w.secret, previous_secret_expires_ms: previousExpiresMs, secret });
    return true;
  }

  async addEvents(teamId: string, entries: readonly NewWebhookEvent[]): Promise<AddedWebhookEvent[]> {
    return entries.map((e) => {
      const k = this.entryKey(teamId, e.endpointId, e.id);
      const existing = this.entries.get(k);
      if (existing)
        return guardAllows(WEBHOOK_EVENT_MACHINE.guards.due, existing.status) ? 'due' : 'finished';
      this.entries.set(k, newWebhookEventEntry(e));
      return 'new';
    });
  }
  async getEvent(teamId: string, endpointId: string, eventId: string): Promise<WebhookEventEntry | null> {
    const e = this.entries.get(this.entryKey(teamId, endpointId, eventId));
    return e ? { ...e } : null;
  }
  async beginAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
  ): Promise<{ endpoint: WebhookEndpoint | null; entry: WebhookEventEntry | null }> {
    const endpoint = await this.get(teamId, endpointId);
    const e = this.entries.get(this.entryKey(teamId, endpointId, eventId));
    if (!e) return { endpoint, entry: null };
    const before = { ...e };
    if (guardAllows(WEBHOOK_ENDPOINT_MACHINE.guards.delivering, endpoint?.status)) {
      if (!guardAllows(WEBHOOK_EVENT_MACHINE.guards.finished, e.status)) e.status = 'attempting';
    } else if (e.status !== 'success') Object.assign(e, { status: 'failed', next_attempt_ms: null });
    return { endpoint, entry: before };
  }
  async recordAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
    r: AttemptRecord,
  ): Promise<AttemptRecorded> {
    const k = this.entryKey(teamId, endpointId, eventId);
    const e = this.entries.get(k);
    if (!e) return 'gone';
    this.attempts.set(k, [...(this.attempts.get(k) ?? []), r.attempt]);
    Object.assign(e, {
      status: r.status,
      next_attempt_ms: r.nextAttemptMs,
      run_attempts: e.run_attempts + 1,
    });
    const w = this.endpoints.get(this.key(teamId, endpointId));
    if (!w) return 'gone';
    if (r.health.kind === 'healthy') {
      w.failing_since_ms = null;
      return 'recorded';
    }
    w.failing_since_ms ??= r.health.sinceMs;
    if (r.health.kind === 'disable' && guardAllows(WEBHOOK_ENDPOINT_MACHINE.guards.delivering, w.status)) {
      Object.assign(w, { status: 'disabled', disabled_reason: r.health.reason });
      return 'disabled';
    }
    return 'recorded';
  }
  async startReplay(teamId: string, endpointId: string, eventId: string): Promise<number | null> {
    const e = this.entries.get(this.entryKey(teamId, endpointId, eventId));
    if (!e) return null;
    Object.assign(e, { status: 'pending', next_attempt_ms: null, run_attempts: 0, replays: e.replays + 1 });
    return e.replays;
  }
}

/** A delivery queue that keeps job ids (an existing one is kept, as BullMQ does). */
export class MemoryWebhookQueue implements WebhookDeliveryQueuePort {
  readonly jobs = new Map<string, { teamId: string; endpointId: string; eventId: string; delayMs: number }>();
  async enqueue(jobs: readonly WebhookDeliveryJobSpec[]): Promise<void> {
    for (const j of jobs) {
      const id = webhookDeliveryJobId(j.eventId, j.endpointId, j.replay ?? 0);
      if (!this.jobs.has(id))
        this.jobs.set(id, {
          teamId: j.teamId,
          endpointId: j.endpointId,
          eventId: j.eventId,
          delayMs: j.delayMs ?? 0,
        });
    }
  }
}
