/**
 * The Lua scripts of the broadcasts store, merged into the one registry of scripts.ts (same
 * names `petrel<Verb><Noun>`, same slot check on every call). One script per state change of a
 * broadcast, each a compare-and-set on the record's `status` (and a bump of its `rev`): two
 * changes racing on one broadcast (a DELETE and the fan-out starting at the due time, a cancel
 * and a checkpoint) are ordered by Redis, and the second sees the first's status.
 *
 * Replies of the transitions: `{'ok', <the record's fields flat>}` (the record as the change left
 * it; for a delete, as it was), `{'missing'}` or `{'status', <current status>}`.
 */
type Arg = string | number;

/** Lua: refuse (missing / wrong status) unless the record's status is one of `allowed`. */
function casGuard(allowed: readonly string[]): string {
  const refused = allowed.map((s) => `st ~= '${s}'`).join(' and ');
  return `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {'missing'} end
if ${refused} then return {'status', st} end
`;
}

/** Lua: the record after the change, as the transitions reply. */
const OK_RECORD = `return {'ok', unpack(redis.call('HGETALL', KEYS[1]))}`;

export const BROADCAST_SCRIPTS = {
  /**
   * KEYS[1] broadcast, KEYS[2] the team's broadcast listing (zset). ARGV: id, createdMs, then
   * the record's field/value pairs. Returns 1.
   */
  petrelCreateBroadcast: {
    numberOfKeys: 2,
    lua: `
redis.call('HSET', KEYS[1], unpack(ARGV, 3, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] broadcast. ARGV: N, N field/value args to set, then fields to delete (null). Only a
   * draft's content changes.
   */
  petrelUpdateBroadcast: {
    numberOfKeys: 1,
    lua: `${casGuard(['draft'])}
local n = tonumber(ARGV[1])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + n)) end
if #ARGV > 1 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 2 + n, #ARGV)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
${OK_RECORD}
`,
  },
  /** KEYS[1] broadcast. ARGV: dueMs, due (ISO). draft → scheduled. */
  petrelScheduleBroadcast: {
    numberOfKeys: 1,
    lua: `${casGuard(['draft'])}
redis.call('HSET', KEYS[1], 'status', 'scheduled', 'due_ms', ARGV[1], 'scheduled_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
${OK_RECORD}
`,
  },
  /** KEYS[1] broadcast. scheduled | queued → canceled (a running fan-out stops at its next checkpoint). */
  petrelCancelBroadcast: {
    numberOfKeys: 1,
    lua: `${casGuard(['scheduled', 'queued'])}
redis.call('HSET', KEYS[1], 'status', 'canceled')
redis.call('HINCRBY', KEYS[1], 'rev', 1)
${OK_RECORD}
`,
  },
  /**
   * KEYS[1] broadcast, KEYS[2] listing. ARGV: id. Removes a draft or scheduled broadcast; one
   * whose fan-out started (queued), finished (sent) or was canceled stays as it is.
   */
  petrelDeleteBroadcast: {
    numberOfKeys: 2,
    lua: `${casGuard(['draft', 'scheduled'])}
local was = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return {'ok', unpack(was)}
`,
  },
  /**
   * KEYS[1] broadcast. ARGV: nowMs. scheduled → queued with `started_ms` = now (fixed from then
   * on: the emails' ids derive from it); a queued one (a fan-out resumed) is returned as it is.
   */
  petrelStartBroadcast: {
    numberOfKeys: 1,
    lua: `${casGuard(['scheduled', 'queued'])}
if st == 'scheduled' then
  redis.call('HSET', KEYS[1], 'status', 'queued', 'started_ms', ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'rev', 1)
end
${OK_RECORD}
`,
  },
  /**
   * KEYS[1] broadcast. ARGV: cursor score, cursor contact id, total, enqueued, skipped (to add),
   * the cursor contact id the page started at ('' for the first page). Only while queued and
   * while the stored cursor is still the page's start (compare-and-set: a second run of the same
   * fan-out cannot count a page twice): returns 1; 0 when not queued (canceled, gone); 2 when
   * another run moved the cursor first.
   */
  petrelCheckpointBroadcast: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'queued' then return 0 end
if (redis.call('HGET', KEYS[1], 'cursor_id') or '') ~= ARGV[6] then return 2 end
redis.call('HSET', KEYS[1], 'cursor_score', ARGV[1], 'cursor_id', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'total', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'enqueued', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'skipped', ARGV[5])
return 1
`,
  },
  /** KEYS[1] broadcast. ARGV: sent_at (ISO). queued → sent: returns 1, or 0 when not queued. */
  petrelFinishBroadcast: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'sent', 'sent_at', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`,
  },
} as const;

/** A transition's reply (see the header). */
export type BroadcastCasReply = ['ok', ...string[]] | ['missing'] | ['status', string];

export interface BroadcastStoreCommands {
  petrelCreateBroadcast(record: string, listing: string, ...argv: Arg[]): Promise<number>;
  petrelUpdateBroadcast(record: string, ...argv: Arg[]): Promise<BroadcastCasReply>;
  petrelScheduleBroadcast(record: string, dueMs: number, dueIso: string): Promise<BroadcastCasReply>;
  petrelCancelBroadcast(record: string): Promise<BroadcastCasReply>;
  petrelDeleteBroadcast(record: string, listing: string, id: string): Promise<BroadcastCasReply>;
  petrelStartBroadcast(record: string, nowMs: number): Promise<BroadcastCasReply>;
  petrelCheckpointBroadcast(record: string, ...argv: Arg[]): Promise<number>;
  petrelFinishBroadcast(record: string, sentIso: string): Promise<number>;
}
