/**
 * Contact imports in Redis: the uploaded CSV in chunks, the import's record (options, progress,
 * outcome) and the team's listing of imports.
 *
 * Layout (keys.ts): `contact-import:<id>:chunks` is a list of the file's bytes, ~256 KiB per
 * entry, in order — any worker on any machine reads it, one entry at a time (LINDEX), so no
 * process ever holds the file. `contact-import:<id>` is a hash: `id`, `status`, `created_at`,
 * `started_at`, `completed_at`, `bytes`, `options` (JSON: column map, on_conflict, segments,
 * topics), the checkpoint (`rows_done`, `total`, `created`, `updated`, `skipped`, `failed`,
 * `failures` JSON), `error`, and `owner` — the run that holds it. `contact-imports` lists the
 * ids by creation time. All carry the team's hash tag: one slot.
 *
 * Lifetime: while uploading, the chunks expire UPLOAD_TTL_MS after the last one written (an API
 * that dies mid-upload leaves nothing for long). Creating the import gives record and chunks
 * PENDING_TTL_MS (an API that dies between the record and its job leaves an import that goes
 * away by itself); the first run's claim removes both expiries. The end of the run deletes the
 * chunks in the same script that writes the outcome. Finished records stay (they are small and
 * are the import's history).
 *
 * Run fencing: `claim` makes the claiming run the owner; `checkpoint` and `finish` write only for
 * the owner, so a run whose job was taken over (its worker stalled, then came back) can write
 * nothing more.
 */
import type { ContactImportCounts, ContactImportStatus, ContactPropertyType } from '@petrel/contracts';
import type {
  ContactImportIntake,
  ContactImportOptions,
  ContactImportRecord,
  ContactImportRuns,
  ImportFailure,
  ImportOutcome,
  ImportProgress,
  ImportReferences,
  PageRequest,
} from '@petrel/core';
import type { RedisClient } from './redis.js';
import { Keys } from './keys.js';
import { pageIndex } from './page-index.js';
import { readHashes } from './hash-records.js';
import { defineScripts, pipeline, transaction, execAll, type StoreCommands } from './scripts.js';

/** Bytes per chunk of an uploaded file (the API cuts the stream at this size). */
export const CONTACT_IMPORT_CHUNK_BYTES = 256 * 1024;
/** A partial upload's chunks expire this long after the last one written. */
const UPLOAD_TTL_MS = 60 * 60 * 1000;
/**
 * A created import not yet taken by a worker expires after this long (7 days, as failed jobs
 * are kept): long enough for any backlog, short enough that an import whose job was never
 * queued (the API died in between) does not stay `queued` for ever.
 */
const PENDING_TTL_MS = 7 * 24 * 3600 * 1000;

const COUNT_FIELDS = ['total', 'created', 'updated', 'skipped', 'failed'] as const;

function progressPairs(p: ImportProgress): string[] {
  return [
    'rows_done',
    String(p.rowsDone),
    ...COUNT_FIELDS.flatMap((f) => [f, String(p.counts[f])]),
    'failures',
    JSON.stringify(p.failures),
  ];
}

function recordPairs(r: ContactImportRecord): string[] {
  return [
    'id',
    r.id,
    'status',
    r.status,
    'created_at',
    r.created_at,
    'completed_at',
    r.completed_at ?? '',
    'bytes',
    String(r.bytes),
    'options',
    JSON.stringify(r.options),
    'error',
    r.error ?? '',
    ...progressPairs(r),
  ];
}

function toRecord(h: Record<string, string>): ContactImportRecord {
  const counts = Object.fromEntries(
    COUNT_FIELDS.map((f) => [f, Number(h[f] ?? 0)]),
  ) as unknown as ContactImportCounts;
  return {
    id: h.id!,
    status: h.status as ContactImportStatus,
    created_at: h.created_at!,
    completed_at: h.completed_at || null,
    options: JSON.parse(h.options ?? '{}') as ContactImportOptions,
    bytes: Number(h.bytes ?? 0),
    error: h.error || null,
    rowsDone: Number(h.rows_done ?? 0),
    counts,
    failures: JSON.parse(h.failures ?? '[]') as ImportFailure[],
  };
}

function flatToHash(flat: unknown): Record<string, string> {
  const list = flat as string[];
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < list.length; i += 2) out[list[i]!] = list[i + 1]!;
  return out;
}

/** Ids read per round trip while a status filter looks for a page's worth of matches. */
const FILTER_SCAN = 100;

export class ContactImportsStore implements ContactImportRuns, ContactImportIntake, ImportReferences {
  private readonly redis: RedisClient & StoreCommands;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
  ) {
    this.redis = defineScripts(redis);
  }

  // ---- upload (API) ----

  /** Appends one chunk of an upload (in order), keeping the partial file UPLOAD_TTL_MS. */
  async appendChunk(teamId: string, importId: string, chunk: Uint8Array): Promise<void> {
    const key = this.keys.contactImportChunks(teamId, importId);
    const p = pipeline(this.redis, 'ContactImportsStore.appendChunk');
    p.rpush(key, Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    p.pexpire(key, UPLOAD_TTL_MS);
    await execAll(p);
  }

  async dropChunks(teamId: string, importId: string): Promise<void> {
    await this.redis.del(this.keys.contactImportChunks(teamId, importId));
  }

  async create(teamId: string, record: ContactImportRecord): Promise<void> {
    const key = this.keys.contactImport(teamId, record.id);
    const m = transaction(this.redis, 'ContactImportsStore.create');
    m.hset(key, ...recordPairs(record));
    m.pexpire(key, PENDING_TTL_MS);
    m.pexpire(this.keys.contactImportChunks(teamId, record.id), PENDING_TTL_MS);
    m.zadd(this.keys.contactImports(teamId), Date.parse(record.created_at), record.id);
    await execAll(m);
  }

  // ---- reads (API) ----

  async get(teamId: string, importId: string): Promise<ContactImportRecord | null> {
    const h = await this.redis.hgetall(this.keys.contactImport(teamId, importId));
    return h.id ? toRecord(h) : null;
  }

  /**
   * Newest first, optionally only those with `status`; null for an unknown cursor. With a
   * filter the listing is read FILTER_SCAN ids at a time until a page is full (a team has few
   * imports).
   */
  async list(
    teamId: string,
    page: PageRequest,
    status?: ContactImportStatus,
  ): Promise<{ items: ContactImportRecord[]; hasMore: boolean } | null> {
    const index = this.keys.contactImports(teamId);
    if (!status) {
      const p = await pageIndex(this.redis, index, page);
      if (!p) return null;
      return { items: await this.read(teamId, p.ids), hasMore: p.hasMore };
    }
    const cursor = page.after ?? page.before;
    let rank = -1;
    if (cursor) {
      const r = await this.redis.zrevrank(index, cursor);
      if (r === null) return null;
      rank = r;
    }
    const found: ContactImportRecord[] = [];
    if (page.before) {
      // towards newer: ranks rank-1 down to 0
      for (let hi = rank - 1; hi >= 0 && found.length <= page.limit; hi -= FILTER_SCAN) {
        const ids = await this.redis.zrevrange(index, Math.max(0, hi - FILTER_SCAN + 1), hi);
        const recs = (await this.read(teamId, ids)).filter((r) => r.status === status);
        found.unshift(...recs);
      }
      return { items: found.slice(-page.limit), hasMore: found.length > page.limit };
    }
    for (let lo = rank + 1; found.length <= page.limit; lo += FILTER_SCAN) {
      const ids = await this.redis.zrevrange(index, lo, lo + FILTER_SCAN - 1);
      if (ids.length === 0) break;
      found.push(...(await this.read(teamId, ids)).filter((r) => r.status === status));
    }
    return { items: found.slice(0, page.limit), hasMore: found.length > page.limit };
  }

  private async read(teamId: string, ids: readonly string[]): Promise<ContactImportRecord[]> {
    // an id whose record expired (never claimed) is left out
    const keys = ids.map((id) => this.keys.contactImport(teamId, id));
    return readHashes(this.redis, 'ContactImportsStore.read', keys, toRecord);
  }

  // ---- references (API) ----

  async missing(
    teamId: string,
    refs: { segments: readonly string[]; topics: readonly string[] },
  ): Promise<{ segments: string[]; topics: string[] }> {
    const all = [
      ...refs.segments.map((id) => this.keys.segment(teamId, id)),
      ...refs.topics.map((id) => this.keys.topic(teamId, id)),
    ];
    if (all.length === 0) return { segments: [], topics: [] };
    const p = pipeline(this.redis, 'ContactImportsStore.missing');
    for (const key of all) p.exists(key);
    const exists = ((await execAll(p)) as number[]).map((n) => n === 1);
    return {
      segments: refs.segments.filter((_, i) => !exists[i]),
      topics: refs.topics.filter((_, i) => !exists[refs.segments.length + i]),
    };
  }

  async propertyTypes(
    teamId: string,
    keys: readonly string[],
  ): Promise<Record<string, ContactPropertyType | null>> {
    const out: Record<string, ContactPropertyType | null> = {};
    if (keys.length === 0) return out;
    const ids = await this.redis.hmget(this.keys.contactPropertyKeys(teamId), ...keys);
    const p = pipeline(this.redis, 'ContactImportsStore.propertyTypes');
    for (const id of ids) p.hget(this.keys.contactProperty(teamId, id ?? '-'), 'type');
    const types = (await execAll(p)) as (string | null)[];
    keys.forEach((key, i) => {
      const t = ids[i] ? types[i] : null;
      out[key] = t === 'string' || t === 'number' ? t : null;
    });
    return out;
  }

  // ---- runs (worker) ----

  /** The keys of a run's scripts: the import's record and its file's chunks. */
  private runKeys(teamId: string, importId: string): [string, string] {
    return [this.keys.contactImport(teamId, importId), this.keys.contactImportChunks(teamId, importId)];
  }

  async claim(
    teamId: string,
    importId: string,
    runId: string,
    nowMs: number,
  ): Promise<ContactImportRecord | null> {
    const flat = await this.redis.petrelClaimContactImport(
      ...this.runKeys(teamId, importId),
      runId,
      new Date(nowMs).toISOString(),
    );
    if (!flat) return null;
    const h = flatToHash(flat);
    return h.id ? toRecord(h) : null;
  }

  async checkpoint(
    teamId: string,
    importId: string,
    runId: string,
    progress: ImportProgress,
  ): Promise<boolean> {
    const ok = await this.redis.petrelCheckpointContactImport(
      this.keys.contactImport(teamId, importId),
      runId,
      ...progressPairs(progress),
    );
    return ok === 1;
  }

  async finish(teamId: string, importId: string, runId: string, outcome: ImportOutcome): Promise<boolean> {
    const ok = await this.redis.petrelFinishContactImport(
      ...this.runKeys(teamId, importId),
      runId,
      'status',
      outcome.status,
      'completed_at',
      new Date(outcome.completedAtMs).toISOString(),
      'error',
      outcome.error ?? '',
      ...progressPairs(outcome),
    );
    return ok === 1;
  }

  /**
   * Fails an import that no run can finish (its job ran out of attempts), whoever owns it, and
   * deletes its file. False when it is gone or has ended already.
   */
  async abandon(teamId: string, importId: string, error: string, nowMs: number): Promise<boolean> {
    const ok = await this.redis.petrelAbandonContactImport(
      ...this.runKeys(teamId, importId),
      error,
      new Date(nowMs).toISOString(),
    );
    return ok === 1;
  }

  /** The file's chunks in order, one LINDEX each: one chunk in memory at a time. */
  async *chunks(teamId: string, importId: string): AsyncIterable<Uint8Array> {
    const key = this.keys.contactImportChunks(teamId, importId);
    for (let i = 0; ; i++) {
      const chunk = await this.redis.lindexBuffer(key, i);
      if (chunk === null) return;
      yield chunk;
    }
  }
}
