/**
 * Webhooks: endpoints and their event logs.
 *
 * Layout (keys.ts): `webhook:<id>` (hash: endpoint, events JSON, status, created_at, secret,
 * previous_secret + previous_secret_expires_ms, failing_since_ms, disabled_reason) and the
 * team's creation-time listing `webhooks`; per endpoint an event log — a listing of event ids
 * by event time, one hash per event (type, created_at, status, next_attempt_ms, the exact body
 * `payload`, run_attempts, replays) and a bounded list of attempts — whose entries expire after
 * the retention. Plus the GLOBAL set of teams with webhooks, used alone: added to before a
 * team's webhook is written (and again after, see {@link WebhooksStore.create}); pruned by the
 * dispatcher when a team has none left ({@link WebhooksStore.pruneTeam}).
 *
 * Each write is one script in the team's slot; recording an attempt writes the attempt, the
 * event's status and the endpoint's health in one step (the attempts of one turn of the event
 * loop together).
 */
import type { WebhookEventStatus } from '@petrel/contracts';
import {
  UUID_RE,
  WEBHOOK_ATTEMPTS_KEPT,
  type AddedWebhookEvent,
  type AttemptRecord,
  type AttemptRecorded,
  type NewWebhookEvent,
  type Page,
  type PageRequest,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEventEntry,
  type WebhookEventLogPort,
  type WebhookPatch,
  type WebhooksPort,
  idKey,
} from '@petrel/core';
import { WEBHOOK_CONSUMER_GROUP } from './keys.js';
import { pageHashes, readHashes } from './hash-records.js';
import { RetainedTeamStore } from './team-store.js';
import { TurnBatcher } from './webhooks.batcher.js';

const nullable = (v: string | undefined): string | null => (v === undefined || v === '' ? null : v);
const nullableMs = (v: string | undefined): number | null => (v === undefined || v === '' ? null : Number(v));

function toWebhook(r: Record<string, string>): WebhookEndpoint {
  return {
    id: r.id!,
    endpoint: r.endpoint!,
    events: JSON.parse(r.events ?? '[]') as string[],
    status: r.status === 'disabled' ? 'disabled' : 'enabled',
    created_at: r.created_at!,
    secret: r.secret!,
    previous_secret: nullable(r.previous_secret),
    previous_secret_expires_ms: nullableMs(r.previous_secret_expires_ms),
    failing_since_ms: nullableMs(r.failing_since_ms),
    disabled_reason: nullable(r.disabled_reason),
  };
}

/** `petrelAddWebhookEvents`' answer per entry. */
const ADDED: Record<number, AddedWebhookEvent> = { 2: 'new', 1: 'due', 0: 'finished' };

const ENTRY_FIELDS = [
  'id',
  'type',
  'created_at',
  'status',
  'next_attempt_ms',
  'payload',
  'run_attempts',
  'replays',
];

function toEntry(r: Record<string, string>): WebhookEventEntry {
  return {
    id: r.id!,
    type: r.type!,
    created_at: r.created_at!,
    status: r.status as WebhookEventStatus,
    next_attempt_ms: nullableMs(r.next_attempt_ms),
    payload: r.payload ?? '',
    run_attempts: Number(r.run_attempts ?? 0),
    replays: Number(r.replays ?? 0),
  };
}

/** Most attempts recorded by one script call. */
const RECORD_BATCH = 200;

interface UnrecordedAttempt {
  endpointId: string;
  eventId: string;
  record: AttemptRecord;
  resolve(recorded: AttemptRecorded): void;
  reject(err: unknown): void;
}

/** `retentionMs`: how long an event log entry and its attempts are kept (the email retention). */
export class WebhooksStore extends RetainedTeamStore implements WebhooksPort, WebhookEventLogPort {
  /** Attempts waiting for their team's next write. */
  private readonly unrecorded = new TurnBatcher<UnrecordedAttempt>(
    (teamId, items) => this.writeAttempts(teamId, items),
    RECORD_BATCH,
  );

  // ---- endpoints ----------------------------------------------------------------------------

  count(teamId: string): Promise<number> {
    return this.redis.zcard(this.keys.webhooks(teamId));
  }

  async all(teamId: string): Promise<WebhookEndpoint[]> {
    const ids = await this.redis.zrevrange(this.keys.webhooks(teamId), 0, -1);
    return readHashes(
      this.redis,
      'webhooks',
      ids.map((id) => this.keys.webhook(teamId, id)),
      toWebhook,
    );
  }

  list(teamId: string, page: PageRequest): Promise<Page<WebhookEndpoint> | null> {
    return pageHashes(
      this.redis,
      'webhooks',
      this.keys.webhooks(teamId),
      page,
      (id) => this.keys.webhook(teamId, id),
      toWebhook,
    );
  }

  async get(teamId: string, id: string): Promise<WebhookEndpoint | null> {
    if (!UUID_RE.test(id)) return null;
    const r = await this.redis.hgetall(this.keys.webhook(teamId, idKey(id)));
    return r.id ? toWebhook(r) : null;
  }

  /**
   * The team joins the global set before its webhook is written, so a dispatcher never misses a
   * team that has one; and once more after, because a dispatcher pruning the team in between
   * (it had none a moment ago) could otherwise remove it for good.
   */
  async create(teamId: string, w: WebhookEndpoint): Promise<void> {
    await this.redis.sadd(this.keys.webhookTeams(), teamId);
    await this.redis.petrelCreateWebhook(
      this.keys.webhook(teamId, w.id),
      this.keys.webhooks(teamId),
      this.keys.events(teamId),
      w.id,
      Date.parse(w.created_at),
      WEBHOOK_CONSUMER_GROUP,
      ...webhookPairs(w),
    );
    await this.redis.sadd(this.keys.webhookTeams(), teamId);
  }

  async update(teamId: string, id: string, patch: WebhookPatch): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    const pairs: string[] = [];
    if (patch.endpoint !== undefined) pairs.push('endpoint', patch.endpoint);
    if (patch.events !== undefined) pairs.push('events', JSON.stringify(patch.events));
    if (patch.status !== undefined) pairs.push('status', patch.status);
    const enabling = patch.status === 'enabled' ? '1' : '0';
    return (
      (await this.redis.petrelUpdateWebhook(this.keys.webhook(teamId, idKey(id)), enabling, ...pairs)) === 1
    );
  }

  async delete(teamId: string, id: string): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    const wid = idKey(id);
    const done = await this.redis.petrelDeleteWebhook(
      this.keys.webhook(teamId, wid),
      this.keys.webhooks(teamId),
      this.keys.webhookEvents(teamId, wid),
      wid,
    );
    return done === 1;
  }

  async rotateSecret(
    teamId: string,
    id: string,
    secret: string,
    previousExpiresMs: number,
  ): Promise<boolean> {
    if (!UUID_RE.test(id)) return false;
    return (
      (await this.redis.petrelRotateWebhookSecret(
        this.keys.webhook(teamId, idKey(id)),
        secret,
        previousExpiresMs,
      )) === 1
    );
  }

  // ---- the global set of teams with webhooks (used alone) -----------------------------------

  teamsWithWebhooks(): Promise<string[]> {
    return this.redis.smembers(this.keys.webhookTeams());
  }

  /**
   * Removes a team that has no webhook left from the global set, then looks again and puts it
   * back if one was created meanwhile (its create adds the team after writing, too).
   */
  async pruneTeam(teamId: string): Promise<void> {
    if ((await this.count(teamId)) > 0) return;
    await this.redis.srem(this.keys.webhookTeams(), teamId);
    if ((await this.count(teamId)) > 0) await this.redis.sadd(this.keys.webhookTeams(), teamId);
  }

  // ---- event logs ---------------------------------------------------------------------------

  async addEvents(
    teamId: string,
    entries: readonly NewWebhookEvent[],
    nowMs: number,
  ): Promise<AddedWebhookEvent[]> {
    if (entries.length === 0) return [];
    const keys: string[] = [];
    const argv: (string | number)[] = [this.retentionMs, nowMs - this.retentionMs];
    for (const e of entries) {
      keys.push(
        this.keys.webhookEvents(teamId, e.endpointId),
        this.keys.webhookEvent(teamId, e.endpointId, e.id),
      );
      argv.push(e.id, e.type, e.created_at, Date.parse(e.created_at) || nowMs, e.payload);
    }
    const found = await this.redis.petrelAddWebhookEvents(keys.length, ...keys, ...argv);
    return found.map((f) => ADDED[f] ?? 'finished');
  }

  async getEvent(teamId: string, endpointId: string, eventId: string): Promise<WebhookEventEntry | null> {
    if (!UUID_RE.test(endpointId) || !UUID_RE.test(eventId)) return null;
    const r = await this.redis.hgetall(this.keys.webhookEvent(teamId, idKey(endpointId), idKey(eventId)));
    return r.id ? toEntry(r) : null;
  }

  listEvents(teamId: string, endpointId: string, page: PageRequest): Promise<Page<WebhookEventEntry> | null> {
    const wid = idKey(endpointId);
    return pageHashes(
      this.redis,
      'webhook events',
      this.keys.webhookEvents(teamId, wid),
      page,
      (id) => this.keys.webhookEvent(teamId, wid, id),
      toEntry,
    );
  }

  /** The attempts of an event to an endpoint, newest first. */
  async attempts(teamId: string, endpointId: string, eventId: string): Promise<WebhookAttempt[]> {
    const raw = await this.redis.lrange(
      this.keys.webhookAttempts(teamId, idKey(endpointId), idKey(eventId)),
      0,
      -1,
    );
    return raw.map((j) => JSON.parse(j) as WebhookAttempt).reverse();
  }

  async beginAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
  ): Promise<{ endpoint: WebhookEndpoint | null; entry: WebhookEventEntry | null }> {
    const [w, h] = await this.redis.petrelStartWebhookAttempt(
      this.keys.webhook(teamId, endpointId),
      this.keys.webhookEvent(teamId, endpointId, eventId),
    );
    const fields: Record<string, string> = {};
    for (let i = 0; i < w.length; i += 2) fields[w[i]!] = w[i + 1]!;
    return {
      endpoint: fields.id ? toWebhook(fields) : null,
      entry:
        h.length && h[0] ? toEntry(Object.fromEntries(ENTRY_FIELDS.map((f, i) => [f, h[i] ?? '']))) : null,
    };
  }

  /**
   * Attempts are recorded in batches (TurnBatcher: those that end in the same turn of the event
   * loop, or while the team's previous batch is being written): one script call per team (its
   * keys share the team's slot) for up to RECORD_BATCH of them — one command, one socket write
   * and one script run instead of one per attempt, which a burst's profile showed costing the
   * dispatcher a tenth of its CPU in socket writes alone. Each call still resolves with its own
   * attempt's outcome.
   */
  recordAttempt(
    teamId: string,
    endpointId: string,
    eventId: string,
    record: AttemptRecord,
  ): Promise<AttemptRecorded> {
    return new Promise((resolve, reject) =>
      this.unrecorded.add(teamId, { endpointId, eventId, record, resolve, reject }),
    );
  }

  private async writeAttempts(teamId: string, items: readonly UnrecordedAttempt[]): Promise<void> {
    const keys: string[] = [];
    const argv: (string | number)[] = [WEBHOOK_ATTEMPTS_KEPT, this.retentionMs];
    for (const { endpointId, eventId, record } of items) {
      const h = record.health;
      keys.push(
        this.keys.webhook(teamId, endpointId),
        this.keys.webhookEvent(teamId, endpointId, eventId),
        this.keys.webhookAttempts(teamId, endpointId, eventId),
      );
      argv.push(
        JSON.stringify(record.attempt),
        record.status,
        record.nextAttemptMs ?? '',
        h.kind,
        h.kind === 'healthy' ? '' : h.sinceMs,
        h.kind === 'disable' ? h.reason : '',
      );
    }
    try {
      const out = await this.redis.petrelRecordWebhookAttempts(keys.length, ...keys, ...argv);
      items.forEach((item, i) => item.resolve(out[i] as AttemptRecorded));
    } catch (err) {
      for (const item of items) item.reject(err);
    }
  }

  async startReplay(teamId: string, endpointId: string, eventId: string): Promise<number | null> {
    if (!UUID_RE.test(endpointId) || !UUID_RE.test(eventId)) return null;
    const n = await this.redis.petrelReplayWebhookEvent(
      this.keys.webhookEvent(teamId, idKey(endpointId), idKey(eventId)),
    );
    return n < 0 ? null : n;
  }
}

function webhookPairs(w: WebhookEndpoint): string[] {
  return [
    'id',
    w.id,
    'endpoint',
    w.endpoint,
    'events',
    JSON.stringify(w.events),
    'status',
    w.status,
    'created_at',
    w.created_at,
    'secret',
    w.secret,
    'previous_secret',
    w.previous_secret ?? '',
    'previous_secret_expires_ms',
    w.previous_secret_expires_ms === null ? '' : String(w.previous_secret_expires_ms),
    'failing_since_ms',
    w.failing_since_ms === null ? '' : String(w.failing_since_ms),
    'disabled_reason',
    w.disabled_reason ?? '',
  ];
}
