/**
 * Custom events: the definitions of POST /events and the log of the events POST /events/send
 * received.
 *
 * Layout (see keys.ts): `custom-event:<id>` holds a definition (id, name, schema as JSON — absent
 * means null —, created_at, updated_at, `rev`); `custom-event-names` maps each name to its id
 * (uniqueness, decided in the create script); `custom-events` lists the ids by creation time.
 * A name never changes, so the name index is written with the definition and removed with it.
 *
 * Received events: `received-events` (ids by reception ms) and `received-event-data` (id → JSON),
 * capped at {@link RECEIVED_EVENTS_CAP} per team, oldest dropped first: the recent history the
 * dashboard shows and the engine may read back; the hand-over to the engine carries the event
 * itself. Recording is idempotent by id.
 *
 * Schema updates are optimistic (the `rev` counter: read, compute, write-if-unchanged, retry).
 */
import type { CustomEventRecord, EventSchemaMap, ReceivedEventRecord } from '@petrel/contracts';
import {
  UUID_RE,
  newId,
  type CreateCustomEventResult,
  type CustomEventsPort,
  type EventIdempotencyPort,
  type IdempotencyPort,
  type Page,
  type PageRequest,
} from '@petrel/core';
import { pageIndex } from './page-index.js';
import { pageHashes } from './hash-records.js';
import { TeamStore } from './team-store.js';
import type { RedisClient } from './redis.js';
import { defineScripts, execAll, transaction } from './scripts.js';
import { requestFingerprint, type IdempotencyClaim, type IdempotencyStore } from './idempotency.store.js';

/** Received events kept per team (the newest); each is at most CUSTOM_EVENT_LIMITS.payloadBytes of payload. */
export const RECEIVED_EVENTS_CAP = 1_000;

/** Optimistic-concurrency retries before a write gives up (only under heavy contention). */
const MAX_WRITE_ATTEMPTS = 8;

export class CustomEventsStore extends TeamStore implements CustomEventsPort {
  /** The definition id of `idOrName` (names never have the shape of an id). */
  private async resolveId(teamId: string, idOrName: string): Promise<string | null> {
    if (UUID_RE.test(idOrName)) return idOrName.toLowerCase();
    return this.redis.hget(this.keys.customEventNames(teamId), idOrName);
  }

  async get(teamId: string, idOrName: string): Promise<CustomEventRecord | null> {
    return (await this.read(teamId, idOrName))?.record ?? null;
  }

  async list(teamId: string, page: PageRequest): Promise<Page<CustomEventRecord> | null> {
    const keyOf = (id: string) => this.keys.customEvent(teamId, id);
    const index = this.keys.customEvents(teamId);
    return pageHashes(this.redis, 'CustomEventsStore.list', index, page, keyOf, toRecord);
  }

  async create(
    teamId: string,
    input: { name: string; schema: EventSchemaMap | null },
  ): Promise<CreateCustomEventResult> {
    const nowMs = this.clock.now();
    const iso = new Date(nowMs).toISOString();
    const record: CustomEventRecord = {
      id: newId(nowMs),
      name: input.name,
      schema: input.schema,
      created_at: iso,
      updated_at: iso,
    };
    const fields = ['id', record.id, 'name', record.name, 'created_at', iso, 'updated_at', iso, 'rev', '0'];
    if (record.schema !== null) fields.push('schema', JSON.stringify(record.schema));
    const ok = await this.redis.petrelCreateCustomEvent(
      this.keys.customEvent(teamId, record.id),
      this.keys.customEvents(teamId),
      this.keys.customEventNames(teamId),
      record.id,
      record.name,
      nowMs,
      ...fields,
    );
    return ok === 1 ? { ok: true, record } : { ok: false, reason: 'name_taken' };
  }

  async setSchema(
    teamId: string,
    idOrName: string,
    schema: EventSchemaMap | null,
  ): Promise<CustomEventRecord | null> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const current = await this.read(teamId, idOrName);
      if (!current) return null;
      // every write moves updated_at strictly forward, even within one millisecond
      const nowMs = Math.max(this.clock.now(), Date.parse(current.record.updated_at) + 1);
      const next: CustomEventRecord = {
        ...current.record,
        schema,
        updated_at: new Date(nowMs).toISOString(),
      };
      const res = await this.redis.petrelSetCustomEventSchema(
        this.keys.customEvent(teamId, current.record.id),
        current.rev,
        next.updated_at,
        schema === null ? '' : JSON.stringify(schema),
      );
      if (res === 1) return next;
      if (res === -1) return null;
    }
    throw new Error(`event ${idOrName}: too many concurrent updates`);
  }

  async remove(teamId: string, idOrName: string): Promise<CustomEventRecord | null> {
    const current = await this.read(teamId, idOrName);
    if (!current) return null;
    const { id, name } = current.record;
    const res = await this.redis.petrelDeleteCustomEvent(
      this.keys.customEvent(teamId, id),
      this.keys.customEvents(teamId),
      this.keys.customEventNames(teamId),
      id,
      name,
    );
    return res === 1 ? current.record : null;
  }

  async recordReceived(teamId: string, event: ReceivedEventRecord): Promise<void> {
    await this.redis.petrelRecordReceivedEvent(
      this.keys.receivedEvents(teamId),
      this.keys.receivedEventData(teamId),
      event.id,
      Date.parse(event.created_at),
      JSON.stringify(event),
      RECEIVED_EVENTS_CAP,
    );
  }

  /** A received event by id, while the log keeps it. */
  async getReceived(teamId: string, id: string): Promise<ReceivedEventRecord | null> {
    const json = await this.redis.hget(this.keys.receivedEventData(teamId), id);
    return json ? (JSON.parse(json) as ReceivedEventRecord) : null;
  }

  /** The received events, newest first (cursor = an event id); null for an unknown cursor. */
  async listReceived(teamId: string, page: PageRequest): Promise<Page<ReceivedEventRecord> | null> {
    const found = await pageIndex(this.redis, this.keys.receivedEvents(teamId), page);
    if (!found) return null;
    if (found.ids.length === 0) return { items: [], hasMore: found.hasMore };
    const rows = await this.redis.hmget(this.keys.receivedEventData(teamId), ...found.ids);
    const items = rows.filter((r): r is string => !!r).map((r) => JSON.parse(r) as ReceivedEventRecord);
    return { items, hasMore: found.hasMore };
  }

  /** The record and its `rev` (the version an optimistic write checks). */
  private async read(
    teamId: string,
    idOrName: string,
  ): Promise<{ record: CustomEventRecord; rev: string } | null> {
    const id = await this.resolveId(teamId, idOrName);
    if (!id) return null;
    const r = await this.redis.hgetall(this.keys.customEvent(teamId, id));
    return r.id ? { record: toRecord(r), rev: r.rev ?? '0' } : null;
  }
}

function toRecord(r: Record<string, string>): CustomEventRecord {
  return {
    id: r.id ?? '',
    name: r.name ?? '',
    schema: r.schema ? (JSON.parse(r.schema) as EventSchemaMap) : null,
    created_at: r.created_at ?? '',
    updated_at: r.updated_at ?? '',
  };
}

/**
 * The Idempotency-Key port of POST /events/send: the claim, peek and release of POST /emails
 * (`shared`, e.g. the acceptance ports: same lock, 24 h memory, conflict rules and metric) with
 * this endpoint's fingerprint, and a completion of its own (a MULTI of the team's slot: a send
 * has no records to commit with it).
 */
export function eventSendIdempotency(
  shared: IdempotencyPort,
  idempotency: IdempotencyStore,
  redis: RedisClient,
): EventIdempotencyPort {
  return {
    claim: (teamId, key, fingerprint) => shared.claim(teamId, key, fingerprint),
    lookup: (teamId, key, fingerprint) => shared.lookup(teamId, key, fingerprint),
    release: (token) => shared.release(token),
    fingerprint: (_endpoint, body) => requestFingerprint('POST', '/events/send', body),
    async complete(token, status, body) {
      const multi = transaction(defineScripts(redis), 'eventSendIdempotency.complete');
      idempotency.completeIn(multi, token as IdempotencyClaim, status, body);
      await execAll(multi);
    },
    ...(shared.onIdempotency && { onIdempotency: (outcome) => shared.onIdempotency?.(outcome) }),
  };
}
