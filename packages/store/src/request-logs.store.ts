/**
 * The team's API request log in Redis: two streams in the team's slot (Keys.requestLogs: one
 * summary per request; Keys.requestLogBodies: its redacted bodies under the same stream id), so a
 * page of the list reads summaries only and a log's look-up is two XRANGEs of one id. A log's
 * public id encodes its stream id and a random tag (core's log-id.ts): no index to keep.
 *
 * Writing is off the request's path: the API hands each finished request to a
 * {@link RequestLogWriter}, which redacts the bodies (core's redact.ts) and appends every
 * buffered entry of a team with one script call per tick (`petrelAppendRequestLogs`: XADDs,
 * trimming to REQUEST_LOG_MAX_ENTRIES and REQUEST_LOG_RETENTION_DAYS, expiry).
 */
import { randomFillSync } from 'node:crypto';
import {
  decodeLogId,
  encodeLogId,
  logTagFrom,
  matchesRequestLogFilter,
  isFiltered,
  redactLogBody,
  type Page,
  type PageRequest,
  type RequestLog,
  type RequestLogFilter,
  type RequestLogPolicy,
  type RequestLogReader,
  type RequestLogSummary,
} from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { defineScripts, pipeline, type StoreCommands } from './scripts.js';
import { TeamStore } from './team-store.js';

/** A finished request, as the API hands it over (bodies as they were sent and answered). */
export interface FinishedRequest {
  teamId: string;
  method: string;
  endpoint: string;
  status: number;
  userAgent: string | null;
  createdMs: number;
  requestBody: unknown;
  responseBody: unknown;
  /** The response body as the route serialised it (JSON text), when it was not an object. */
  responseText?: string;
}

/** The response body of a finished request: its object, or its JSON text parsed here. */
function responseOf(r: FinishedRequest): unknown {
  if (r.responseText === undefined) return r.responseBody;
  try {
    return JSON.parse(r.responseText) as unknown;
  } catch {
    return r.responseText;
  }
}

type StreamEntry = [id: string, fields: string[]];

/** `<ms>-<seq>` as two numbers, for comparisons. */
function streamIdParts(id: string): [number, number] {
  const dash = id.indexOf('-');
  return [Number(id.slice(0, dash)), Number(id.slice(dash + 1))];
}

function laterStreamId(a: string, b: string): string {
  const [am, as] = streamIdParts(a);
  const [bm, bs] = streamIdParts(b);
  return am > bm || (am === bm && as > bs) ? a : b;
}

function field(fields: string[], name: string): string | undefined {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

function toSummary([sid, fields]: StreamEntry): RequestLogSummary {
  return {
    id: encodeLogId(sid, field(fields, 't') ?? ''),
    created_at: field(fields, 'c') ?? '',
    endpoint: field(fields, 'e') ?? '',
    method: field(fields, 'm') ?? '',
    response_status: Number(field(fields, 's') ?? 0),
    user_agent: field(fields, 'u') || null,
  };
}

function parseBody(json: string | undefined): unknown {
  if (json === undefined || json === '') return null;
  return JSON.parse(json) as unknown;
}

/** Entries read per round trip while a filtered page looks for matches. */
const FILTER_CHUNK = 200;

export class RequestLogsStore extends TeamStore implements RequestLogReader {
  /**
   * Newest first. `after`: older than that log; `before`: newer than it (the nearest ones). A
   * cursor needs only to be a log id: an entry trimmed since still marks its place. With filters,
   * summaries are read in chunks until the page is full (at most the team's REQUEST_LOG_MAX_ENTRIES).
   */
  async page(
    teamId: string,
    page: PageRequest,
    filter: RequestLogFilter,
    cutoffMs: number,
  ): Promise<Page<RequestLogSummary>> {
    const key = this.keys.requestLogs(teamId);
    const floor = `${cutoffMs}-0`;
    const want = page.limit + 1;
    const filtered = isFiltered(filter);
    const chunk = filtered ? Math.max(FILTER_CHUNK, want) : want;
    const found: RequestLogSummary[] = [];
    const newerFirst = page.before === undefined;
    const cursorId = page.after ?? page.before;
    const cursor = cursorId === undefined ? undefined : decodeLogId(cursorId)?.streamId;
    // exclusive bounds past the cursor and past each chunk read: `(<id>`
    let from: string;
    if (newerFirst) from = cursor ? `(${cursor}` : '+';
    else from = laterStreamId(cursor!, floor) === floor ? floor : `(${cursor}`;
    for (;;) {
      const entries = (
        newerFirst
          ? await this.redis.xrevrange(key, from, floor, 'COUNT', chunk)
          : await this.redis.xrange(key, from, '+', 'COUNT', chunk)
      ) as StreamEntry[];
      for (const e of entries) {
        const s = toSummary(e);
        if (!filtered || matchesRequestLogFilter(s, filter)) found.push(s);
        if (found.length === want) break;
      }
      if (found.length === want || entries.length < chunk) break;
      from = `(${entries.at(-1)![0]}`;
    }
    const hasMore = found.length > page.limit;
    const items = found.slice(0, page.limit);
    return { items: newerFirst ? items : items.reverse(), hasMore };
  }

  async get(teamId: string, id: string, cutoffMs: number): Promise<RequestLog | null> {
    const at = decodeLogId(id);
    if (!at || streamIdParts(at.streamId)[0] < cutoffMs) return null;
    const batch = pipeline(this.redis, 'RequestLogsStore.get');
    batch.xrange(this.keys.requestLogs(teamId), at.streamId, at.streamId);
    batch.xrange(this.keys.requestLogBodies(teamId), at.streamId, at.streamId);
    const replies = (await batch.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    const summary = (replies[0]?.[1] as StreamEntry[] | undefined)?.[0];
    if (!summary || field(summary[1], 't') !== at.tag) return null;
    const bodies = (replies[1]?.[1] as StreamEntry[] | undefined)?.[0]?.[1] ?? [];
    return {
      ...toSummary(summary),
      request_body: parseBody(field(bodies, 'q')),
      response_body: parseBody(field(bodies, 'r')),
    };
  }
}

export interface RequestLogWriterOptions {
  /** How long a finished request waits for others before its team's entries are written. */
  flushMs?: number;
  /** Requests held at most while Redis is slow or away; more are dropped (and reported). */
  maxBuffered?: number;
  /** A failed write (its entries are lost: a log is not worth retrying against live traffic). */
  onError?: (err: unknown, lost: number) => void;
  /** Requests dropped because the buffer was full. */
  onDropped?: (n: number) => void;
}

/** Default wait before a write: short enough for a log to show at once, long enough to batch. */
export const REQUEST_LOG_FLUSH_MS = 50;
const MAX_BUFFERED = 10_000;

/**
 * Buffers finished requests and appends them per team, one script call per team and tick; the
 * bodies are redacted and serialised there, after the responses went out.
 */
export class RequestLogWriter {
  private readonly redis: RedisClient & StoreCommands;
  private buffer: FinishedRequest[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly flushMs: number;
  private readonly maxBuffered: number;

  constructor(
    redis: RedisClient,
    private readonly keys: Keys,
    private readonly policy: RequestLogPolicy,
    private readonly opts: RequestLogWriterOptions = {},
  ) {
    this.redis = defineScripts(redis);
    this.flushMs = opts.flushMs ?? REQUEST_LOG_FLUSH_MS;
    this.maxBuffered = opts.maxBuffered ?? MAX_BUFFERED;
  }

  add(request: FinishedRequest): void {
    if (this.buffer.length >= this.maxBuffered) {
      this.opts.onDropped?.(1);
      return;
    }
    this.buffer.push(request);
    this.timer ??= setTimeout(() => void this.flush(), this.flushMs);
  }

  /** Write everything buffered now (resolves once written or failed). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const taken = this.buffer;
    this.buffer = [];
    if (taken.length === 0) return Promise.all(this.inFlight).then(() => undefined);
    const byTeam = new Map<string, FinishedRequest[]>();
    for (const r of taken) {
      const list = byTeam.get(r.teamId);
      if (list) list.push(r);
      else byTeam.set(r.teamId, [r]);
    }
    const random = Buffer.alloc(6 * taken.length);
    randomFillSync(random);
    let offset = 0;
    const writes = [...byTeam].map(([teamId, requests]) => {
      const args: (string | number)[] = [
        this.policy.maxEntries,
        `${Math.max(0, Date.now() - this.policy.retentionMs)}-0`,
        this.policy.retentionMs,
      ];
      for (const r of requests) {
        args.push(
          logTagFrom(random.subarray(offset, (offset += 6))),
          r.method,
          r.endpoint,
          r.status,
          r.userAgent ?? '',
          new Date(r.createdMs).toISOString(),
          JSON.stringify(redactLogBody(r.requestBody, this.policy.bodyMaxBytes)),
          JSON.stringify(redactLogBody(responseOf(r), this.policy.bodyMaxBytes)),
        );
      }
      return this.redis
        .petrelAppendRequestLogs(this.keys.requestLogs(teamId), this.keys.requestLogBodies(teamId), ...args)
        .then(
          () => undefined,
          (err: unknown) => this.opts.onError?.(err, requests.length),
        );
    });
    const done = Promise.all(writes).then(() => undefined);
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
    return done;
  }

  /** Write what is buffered and wait for every write (at shutdown, before Redis closes). */
  async close(): Promise<void> {
    await this.flush();
    await Promise.all(this.inFlight);
  }
}
