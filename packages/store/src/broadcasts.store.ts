/**
 * Broadcasts: one hash per broadcast (`broadcast:<id>`) and a creation-time listing.
 *
 * Fields: the content (id, name, segment_id, from, subject, reply_to as a JSON array, html,
 * text, preview_text, topic_id — an absent field is null), status, created_at, scheduled_at and
 * due_ms (once scheduled), sent_at, rev (moves on every change), and the fan-out's own:
 * started_ms (fixed when it starts: the emails' deterministic ids use it), cursor_score and
 * cursor_id (the last segment member done), total / enqueued / skipped (the counts).
 *
 * Every state change is one script (broadcasts.scripts.ts), a compare-and-set on `status`: a
 * DELETE racing the fan-out's start at the due time either removes a `scheduled` broadcast (the
 * fan-out then finds nothing and sends nothing) or finds it `queued` and is refused — never
 * both. The content is immutable once the broadcast left `draft`, so the send path
 * ({@link BroadcastsStore.forSend}) caches it per broadcast and reads only the status fresh.
 */
import { LRUCache } from 'lru-cache';
import type { BroadcastCounts, BroadcastRecord, BroadcastStatus } from '@petrel/contracts';
import {
  UUID_RE,
  broadcastContent,
  newId,
  type BroadcastContent,
  type BroadcastReader,
  type BroadcastsPort,
  type CasResult,
  type FanoutCheckpoint,
  type FanoutCursor,
  type FanoutStep,
  type Page,
  type PageRequest,
  type ProtectionCounts,
  idKey,
} from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN, type Keys } from './keys.js';
import { teamEventJson } from './team-event-json.js';
import type { RedisClient } from './redis.js';
import type { BroadcastCasReply } from './broadcasts.scripts.js';
import { getHash, pageHashes } from './hash-records.js';
import { pageIndex } from './page-index.js';
import { execAll, pipeline } from './scripts.js';
import { TeamStore } from './team-store.js';
import { PROTECTION_FIELDS } from './email-metrics.fields.js';

/** Bounds of the send path's content cache: entries, and total characters of html + text. */
const CONTENT_CACHE_LIMITS = { entries: 1_000, chars: 64 * 1024 * 1024 } as const;

/** The fields a listing reads: all but the bodies. */
const SUMMARY_FIELDS = [
  'id',
  'name',
  'segment_id',
  'from',
  'subject',
  'reply_to',
  'preview_text',
  'topic_id',
  'status',
  'created_at',
  'scheduled_at',
  'sent_at',
  'paused_reason',
  'total',
  'enqueued',
  'skipped',
] as const;

/** Content fields that may be null (absent from the hash). */
const NULLABLE_FIELDS = ['name', 'reply_to', 'html', 'text', 'preview_text', 'topic_id'] as const;

type StartResult = Awaited<ReturnType<BroadcastsPort['startFanout']>>;

export class BroadcastsStore extends TeamStore implements BroadcastsPort, BroadcastReader {
  /** Content of broadcasts that left `draft`, by team and id (it never changes from then on). */
  private readonly content = new LRUCache<string, BroadcastContent>({
    max: CONTENT_CACHE_LIMITS.entries,
    maxSize: CONTENT_CACHE_LIMITS.chars,
    maxEntrySize: CONTENT_CACHE_LIMITS.chars / 16,
    sizeCalculation: (c) => 1 + (c.html?.length ?? 0) + (c.text?.length ?? 0),
  });

  constructor(redis: RedisClient, keys: Keys, clock: { now(): number } = Date) {
    super(redis, keys, clock);
  }

  async create(teamId: string, content: BroadcastContent): Promise<BroadcastRecord> {
    const nowMs = this.clock.now();
    const record: BroadcastRecord = {
      id: newId(nowMs),
      ...content,
      status: 'draft',
      created_at: new Date(nowMs).toISOString(),
      scheduled_at: null,
      sent_at: null,
      counts: { total: 0, enqueued: 0, skipped: 0 },
    };
    const fields = [
      ...contentPairs(content).set,
      'id',
      record.id,
      'status',
      record.status,
      'created_at',
      record.created_at,
      'rev',
      '0',
    ];
    await this.redis.petrelCreateBroadcast(
      this.keys.broadcast(teamId, record.id),
      this.keys.broadcasts(teamId),
      record.id,
      nowMs,
      ...fields,
    );
    return record;
  }

  get(teamId: string, id: string): Promise<BroadcastRecord | null> {
    return getHash(this.redis, (b) => this.keys.broadcast(teamId, b), id, toBroadcast);
  }

  /** Newest first; null for an unknown cursor. */
  list(teamId: string, page: PageRequest): Promise<Page<BroadcastRecord> | null> {
    const keyOf = (b: string): string => this.keys.broadcast(teamId, b);
    return pageHashes(
      this.redis,
      'BroadcastsStore.list',
      this.keys.broadcasts(teamId),
      page,
      keyOf,
      toBroadcast,
    );
  }

  /**
   * A page as GET /broadcasts lists it: the records without html and text (null here), so an
   * unpaged list of thousands of broadcasts never reads their bodies. Null for an unknown cursor.
   */
  async listSummaries(teamId: string, page: PageRequest): Promise<Page<BroadcastRecord> | null> {
    const found = await pageIndex(this.redis, this.keys.broadcasts(teamId), page);
    if (!found) return null;
    if (found.ids.length === 0) return { items: [], hasMore: found.hasMore };
    const pipe = pipeline(this.redis, 'BroadcastsStore.listSummaries');
    for (const id of found.ids) pipe.hmget(this.keys.broadcast(teamId, id), ...SUMMARY_FIELDS);
    const rows = (await execAll(pipe)) as (string | null)[][];
    const items = rows
      .map((values) => {
        const r: Record<string, string> = {};
        SUMMARY_FIELDS.forEach((f, i) => {
          if (values[i] !== null && values[i] !== undefined) r[f] = values[i];
        });
        return r;
      })
      .filter((r) => r.id)
      .map(toBroadcast);
    return { items, hasMore: found.hasMore };
  }

  async update(teamId: string, id: string, patch: Partial<BroadcastContent>): Promise<CasResult> {
    const { set, cleared } = contentPairs(patch);
    return this.cas(teamId, id, (key) =>
      this.redis.petrelUpdateBroadcast(key, set.length, ...set, ...cleared),
    );
  }

  async schedule(teamId: string, id: string, dueMs: number): Promise<CasResult> {
    const due = new Date(dueMs).toISOString();
    return this.cas(teamId, id, (key) => this.redis.petrelScheduleBroadcast(key, dueMs, due));
  }

  async cancel(teamId: string, id: string): Promise<CasResult> {
    return this.cas(teamId, id, (key) => this.redis.petrelCancelBroadcast(key));
  }

  async remove(teamId: string, id: string): Promise<CasResult> {
    const res = await this.cas(teamId, id, (key) =>
      this.redis.petrelDeleteBroadcast(key, this.keys.broadcasts(teamId), idKey(id)),
    );
    if (res.ok) this.content.delete(`${teamId}:${res.record.id}`);
    return res;
  }

  // fan-out side -------------------------------------------------------------------------------

  async startFanout(teamId: string, id: string, nowMs: number): Promise<StartResult> {
    const key = this.key(teamId, id);
    if (!key) return { ok: false, reason: 'not_found' };
    const reply = await this.redis.petrelStartBroadcast(key, nowMs);
    if (reply[0] === 'missing') return { ok: false, reason: 'not_found' };
    if (reply[0] === 'status') return { ok: false, reason: 'status' };
    const r = fieldsOf(reply);
    const cursor: FanoutCursor | null =
      r.cursor_id === undefined ? null : { score: Number(r.cursor_score), contactId: r.cursor_id };
    return { ok: true, record: toBroadcast(r), startedMs: Number(r.started_ms), cursor };
  }

  async checkpoint(
    teamId: string,
    id: string,
    step: FanoutStep,
    add: BroadcastCounts,
  ): Promise<FanoutCheckpoint> {
    const key = this.key(teamId, id);
    if (!key) return 'not_queued';
    const res = await this.redis.petrelCheckpointBroadcast(
      key,
      step.to.score,
      step.to.contactId,
      add.total,
      add.enqueued,
      add.skipped,
      step.from?.contactId ?? '',
    );
    return res === 1 ? 'ok' : res === 2 ? 'moved' : 'not_queued';
  }

  async finishFanout(teamId: string, id: string, nowMs: number): Promise<boolean> {
    const key = this.key(teamId, id);
    if (!key) return false;
    return (await this.redis.petrelFinishBroadcast(key, new Date(nowMs).toISOString())) === 1;
  }

  // protection (core broadcasts/protection.ts) ------------------------------------------------

  async pause(teamId: string, id: string, reason: string): Promise<CasResult> {
    return this.cas(teamId, id, (key) => {
      const event = teamEventJson(
        'broadcast.paused',
        teamId,
        { broadcast_id: idKey(id), paused_reason: reason },
        this.clock.now(),
      );
      return this.redis.petrelPauseBroadcast(
        key,
        this.keys.events(teamId),
        reason,
        EVENTS_STREAM_MAXLEN,
        EVENTS_STREAM_FIELD,
        event,
      );
    });
  }

  async resume(teamId: string, id: string): Promise<CasResult> {
    return this.cas(teamId, id, (key) => this.redis.petrelResumeBroadcast(key));
  }

  /** The counters petrelRecordEmailEvents adds to as the broadcast's emails are sent, bounce, complain. */
  async protectionCounts(teamId: string, id: string): Promise<ProtectionCounts> {
    const key = this.key(teamId, id);
    if (!key) return { sent: 0, hardBounced: 0, complained: 0 };
    const f = PROTECTION_FIELDS;
    const [sent, hardBounced, complained] = await this.redis.hmget(
      key,
      f.sent,
      f.bounced_permanent,
      f.complained,
    );
    return {
      sent: Number(sent ?? 0),
      hardBounced: Number(hardBounced ?? 0),
      complained: Number(complained ?? 0),
    };
  }

  // send side -----------------------------------------------------------------------------------

  /**
   * The status (read fresh: a cancel or a delete must stop the emails not sent yet) and the
   * content (cached once the broadcast left `draft`: it never changes from then on). Null when
   * the broadcast is gone.
   */
  async forSend(
    teamId: string,
    broadcastId: string,
  ): Promise<{ status: BroadcastStatus; content: BroadcastContent } | null> {
    const key = this.key(teamId, broadcastId);
    if (!key) return null;
    const cacheKey = `${teamId}:${idKey(broadcastId)}`;
    const cached = this.content.get(cacheKey);
    if (cached) {
      const status = (await this.redis.hget(key, 'status')) as BroadcastStatus | null;
      if (status === null) {
        this.content.delete(cacheKey);
        return null;
      }
      return { status, content: cached };
    }
    const r = await this.redis.hgetall(key);
    if (!r.id) return null;
    const record = toBroadcast(r);
    const content = broadcastContent(record);
    if (record.status !== 'draft') this.content.set(cacheKey, content);
    return { status: record.status, content };
  }

  /** The record's key, or null for an id that cannot name a broadcast (ids are UUIDs). */
  private key(teamId: string, id: string): string | null {
    return UUID_RE.test(id) ? this.keys.broadcast(teamId, idKey(id)) : null;
  }

  /**
   * A compare-and-set script of broadcast `id`'s record (`run` with its key), its reply read by
   * casResult; not_found without a call for an id that cannot be a broadcast's.
   */
  private async cas(
    teamId: string,
    id: string,
    run: (key: string) => Promise<BroadcastCasReply>,
  ): Promise<CasResult> {
    const key = this.key(teamId, id);
    return key ? casResult(await run(key)) : { ok: false, reason: 'not_found' };
  }
}

/** The content fields of `c` (absent keys skipped): those to set, and those null (to delete). */
function contentPairs(c: Partial<BroadcastContent>): { set: string[]; cleared: string[] } {
  const set: string[] = [];
  const cleared: string[] = [];
  for (const [field, value] of Object.entries(c)) {
    if (value === undefined) continue;
    if (value === null) {
      if ((NULLABLE_FIELDS as readonly string[]).includes(field)) cleared.push(field);
      continue;
    }
    set.push(field, Array.isArray(value) ? JSON.stringify(value) : String(value));
  }
  return { set, cleared };
}

function fieldsOf(flat: readonly string[]): Record<string, string> {
  const r: Record<string, string> = {};
  for (let i = 1; i + 1 < flat.length; i += 2) r[flat[i]!] = flat[i + 1]!;
  return r;
}

function casResult(reply: BroadcastCasReply): CasResult {
  if (reply[0] === 'missing') return { ok: false, reason: 'not_found' };
  if (reply[0] === 'status') return { ok: false, reason: 'status', status: reply[1] as BroadcastStatus };
  return { ok: true, record: toBroadcast(fieldsOf(reply)) };
}

export function toBroadcast(r: Record<string, string>): BroadcastRecord {
  return {
    id: r.id ?? '',
    name: r.name ?? null,
    segment_id: r.segment_id ?? '',
    from: r.from ?? '',
    subject: r.subject ?? '',
    reply_to: r.reply_to === undefined ? null : (JSON.parse(r.reply_to) as string[]),
    html: r.html ?? null,
    text: r.text ?? null,
    preview_text: r.preview_text ?? null,
    topic_id: r.topic_id ?? null,
    status: (r.status ?? 'draft') as BroadcastStatus,
    created_at: r.created_at ?? '',
    scheduled_at: r.scheduled_at ?? null,
    sent_at: r.sent_at ?? null,
    ...(r.paused_reason !== undefined && { paused_reason: r.paused_reason }),
    counts: {
      total: Number(r.total ?? 0),
      enqueued: Number(r.enqueued ?? 0),
      skipped: Number(r.skipped ?? 0),
    },
  };
}
