/**
 * Every atomic multi-key step of the store, as a named Lua script (verb + key count, as BullMQ
 * names its scripts). Registered on a connection with `defineScripts`.
 */
import type { Redis } from 'ioredis';

/**
 * idempotencyClaim-1
 * KEYS[1] idempotency record. ARGV: fingerprint, owner, now(ms), lockMs, ttlMs.
 * Returns { outcome, started, status, body }:
 *  - 'proceed'   key absent (claimed; started=now) or a previous claim's lock expired
 *                (taken over; started kept, so ids derived from it stay the same)
 *  - 'mismatch'  fingerprint differs
 *  - 'in_flight' claimed by a live request
 *  - 'replay'    done: status + body returned verbatim
 */
const idempotencyClaim = `
local h = redis.call('HMGET', KEYS[1], 'fp', 'state', 'lock_until', 'started', 'status', 'body')
if not h[1] then
  redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'in_progress', 'owner', ARGV[2],
    'started', ARGV[3], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'proceed', ARGV[3]}
end
if h[1] ~= ARGV[1] then return {'mismatch', h[4]} end
if h[2] == 'done' then return {'replay', h[4], h[5], h[6]} end
if tonumber(h[3]) > tonumber(ARGV[3]) then return {'in_flight', h[4]} end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
return {'proceed', h[4]}
`;

/** idempotencyComplete-1: KEYS[1] record. ARGV: owner, status, body, ttlMs. Only the owner completes. */
const idempotencyComplete = `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'status', ARGV[2], 'body', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/** idempotencyRelease-1: KEYS[1] record. ARGV: owner. Drops a claim whose request failed validation. */
const idempotencyRelease = `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'in_progress' then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/**
 * createEmails-N
 * KEYS[1] the team's email index (zset); KEYS[2..N] email records, then the same count of
 * timeline keys. ARGV: count, createdMs, retentionMs, sharedCount, sharedCount name/value pairs
 * (fields every record of the request has), then per email: id, eventJSON, fieldCount, and
 * fieldCount name/value pairs. Fields arrive flat (no JSON to decode here).
 * An email whose record exists already (an idempotent retry) is left untouched.
 * Returns the number of records created.
 */
const createEmails = `
local n = tonumber(ARGV[1])
local ns = tonumber(ARGV[4])
local shared_from, shared_to = 5, 4 + ns * 2
local p = 5 + ns * 2
local index = {}
for i = 1, n do
  local rec = KEYS[1 + i]
  local tl = KEYS[1 + n + i]
  local id, ev, nf = ARGV[p], ARGV[p + 1], tonumber(ARGV[p + 2])
  local from, to = p + 3, p + 2 + nf * 2
  p = to + 1
  if redis.call('EXISTS', rec) == 0 then
    redis.call('HSET', rec, 'id', id, unpack(ARGV, shared_from, shared_to))
    if nf > 0 then redis.call('HSET', rec, unpack(ARGV, from, to)) end
    redis.call('PEXPIRE', rec, ARGV[3])
    redis.call('RPUSH', tl, ev)
    redis.call('PEXPIRE', tl, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
  end
end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
return #index / 2
`;

/**
 * recordEmailEvents-3
 * KEYS[1] email record, KEYS[2] its timeline, KEYS[3] the events stream.
 * ARGV: streamMaxLen, fieldCount, then fieldCount name/value pairs to set on the record, then per
 * event (in order): status, rank, eventJSON.
 * Appends and publishes every event, sets the fields, and moves `status` to the highest-ranked
 * event's status if that is forward (rank comparison), so events that arrive out of order never
 * move an email backwards. Returns 1 if the status moved, 0 if not, -1 if the record is gone.
 */
const recordEmailEvents = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local nf = tonumber(ARGV[2])
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + nf * 2)) end
local best = tonumber(redis.call('HGET', KEYS[1], 'status_rank') or '-1')
local status = nil
for i = 3 + nf * 2, #ARGV, 3 do
  redis.call('RPUSH', KEYS[2], ARGV[i + 2])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'event', ARGV[i + 2])
  local rank = tonumber(ARGV[i + 1])
  if rank > best then best = rank; status = ARGV[i] end
end
if status then
  redis.call('HSET', KEYS[1], 'status', status, 'status_rank', best)
  return 1
end
return 0
`;

/**
 * cancelScheduled-2: KEYS[1] email record, KEYS[2] timeline. ARGV: eventJSON, canceledRank.
 * Cancels only an email that is still `scheduled`. Returns 1 if canceled, 0 if not scheduled,
 * -1 if missing.
 */
const cancelScheduled = `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return -1 end
if st ~= 'scheduled' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'canceled', 'status_rank', ARGV[2])
redis.call('RPUSH', KEYS[2], ARGV[1])
return 1
`;

export const SCRIPTS = {
  cancelScheduled: { numberOfKeys: 2, lua: cancelScheduled },
  idempotencyClaim: { numberOfKeys: 1, lua: idempotencyClaim },
  idempotencyComplete: { numberOfKeys: 1, lua: idempotencyComplete },
  idempotencyRelease: { numberOfKeys: 1, lua: idempotencyRelease },
  createEmails: { numberOfKeys: undefined, lua: createEmails },
  recordEmailEvents: { numberOfKeys: 3, lua: recordEmailEvents },
} as const;

export interface StoreCommands {
  cancelScheduled(record: string, timeline: string, eventJson: string, rank: number): Promise<number>;
  idempotencyClaim(key: string, ...args: (string | number)[]): Promise<string[]>;
  idempotencyComplete(key: string, ...args: (string | number)[]): Promise<number>;
  idempotencyRelease(key: string, owner: string): Promise<number>;
  createEmails(numKeys: number, ...args: (string | number)[]): Promise<number>;
  recordEmailEvents(...args: (string | number)[]): Promise<number>;
}

/** Register the store's scripts on a connection (idempotent per connection). */
export function defineScripts(redis: Redis): Redis & StoreCommands {
  const marked = redis as Redis & { __petrelScripts?: boolean };
  if (!marked.__petrelScripts) {
    for (const [name, s] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, s.numberOfKeys === undefined ? { lua: s.lua } : s);
    }
    marked.__petrelScripts = true;
  }
  return redis as Redis & StoreCommands;
}
