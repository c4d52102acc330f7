/**
 * The Lua scripts of the webhooks store, merged into the one registry of scripts.ts (names
 * `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and carries the team's
 * `{tag}`; the global set of teams with webhooks is never touched here (it is used alone).
 *
 * Nullable fields are stored as '' (an absent hash field reads the same).
 */
type Arg = string | number;

export const WEBHOOK_SCRIPTS = {
  /**
   * KEYS[1] webhook, [2] the team's webhook listing, [3] the team's events stream.
   * ARGV: id, createdMs, consumer group, then the webhook's field/value pairs.
   * The team's first webhook (re)starts the dispatchers' consumer group at the end of the
   * stream, so events from before it are never delivered to it. Returns 1.
   */
  petrelCreateWebhook: {
    numberOfKeys: 3,
    lua: `
if redis.call('ZCARD', KEYS[2]) == 0 then
  local ok = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[3], ARGV[3], '$', 'MKSTREAM')
  if not ok then redis.call('XGROUP', 'SETID', KEYS[3], ARGV[3], '$') end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 4, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] webhook. ARGV: '1' when the patch enables it (the failure run and the reason it was
   * disabled are cleared), then field/value pairs. Returns 1, or 0 when the webhook is gone.
   */
  petrelUpdateWebhook: {
    numberOfKeys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, #ARGV)) end
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'failing_since_ms', '', 'disabled_reason', '') end
return 1
`,
  },
  /**
   * KEYS[1] webhook, [2] listing, [3] its event log listing. ARGV: id. The log's entries expire
   * on their own (their TTL); jobs still queued find no webhook and end. Returns 1, or 0 when gone.
   */
  petrelDeleteWebhook: {
    numberOfKeys: 3,
    lua: `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
`,
  },
  /**
   * KEYS[1] webhook. ARGV: new secret, ms until which the replaced one keeps signing.
   * Returns 1, or 0 when the webhook is gone.
   */
  petrelRotateWebhookSecret: {
    numberOfKeys: 1,
    lua: `
local old = redis.call('HGET', KEYS[1], 'secret')
if not old then return 0 end
redis.call('HSET', KEYS[1], 'secret', ARGV[1], 'previous_secret', old, 'previous_secret_expires_ms', ARGV[2])
return 1
`,
  },
  /**
   * KEYS: per entry, its endpoint's event log listing then the entry's hash.
   * ARGV: entryTtlMs, cutoffMs (older log entries leave the listing), then per entry: id, type,
   * created_at, createdMs, payload.
   * Writes the entries that do not exist (status pending). Returns per entry 2 when it wrote it,
   * 1 when it was there and a delivery may still be due (pending/attempting: a re-read after a
   * crash), 0 when it finished.
   */
  petrelAddWebhookEvents: {
    numberOfKeys: null,
    lua: `
local out = {}
local p = 3
for i = 1, #KEYS, 2 do
  local listing, entry = KEYS[i], KEYS[i + 1]
  local st = redis.call('HGET', entry, 'status')
  if st then
    out[#out + 1] = (st == 'pending' or st == 'attempting') and 1 or 0
  else
    redis.call('HSET', entry, 'id', ARGV[p], 'type', ARGV[p + 1], 'created_at', ARGV[p + 2],
      'status', 'pending', 'next_attempt_ms', '', 'payload', ARGV[p + 4], 'run_attempts', 0, 'replays', 0)
    redis.call('PEXPIRE', entry, ARGV[1])
    redis.call('ZADD', listing, ARGV[p + 3], ARGV[p])
    redis.call('ZREMRANGEBYSCORE', listing, '-inf', '(' .. ARGV[2])
    out[#out + 1] = 2
  end
  p = p + 5
end
return out
`,
  },
  /**
   * KEYS[1] webhook, [2] an event log entry. Returns { the webhook's fields (HGETALL, flat),
   * the entry's fields as they were (id, type, created_at, status, next_attempt_ms, payload,
   * run_attempts, replays; empty when gone) }. With the webhook enabled the entry becomes
   * `attempting` unless it finished; with it gone or disabled, `failed` unless it succeeded.
   */
  petrelStartWebhookAttempt: {
    numberOfKeys: 2,
    lua: `
local w = redis.call('HGETALL', KEYS[1])
local h = redis.call('HMGET', KEYS[2], 'id', 'type', 'created_at', 'status', 'next_attempt_ms', 'payload', 'run_attempts', 'replays')
if not h[1] then return {w, {}} end
local st = h[4]
local enabled = false
for i = 1, #w, 2 do
  if w[i] == 'status' then enabled = w[i + 1] == 'enabled' end
end
if enabled then
  if st ~= 'success' and st ~= 'failed' then redis.call('HSET', KEYS[2], 'status', 'attempting') end
elseif st ~= 'success' then
  redis.call('HSET', KEYS[2], 'status', 'failed', 'next_attempt_ms', '')
end
return {w, h}
`,
  },
  /**
   * KEYS: per attempt, its webhook, its event log entry, the entry's attempts (list).
   * ARGV: attempts kept, entry TTL (ms), then per attempt: attempt JSON, status,
   * next_attempt_ms ('' = none), health ('healthy' | 'failing' | 'disable'), failing since (ms),
   * disable reason.
   * Records each attempt and its consequences, in order (several attempts to one webhook see each
   * other's health writes, as separate calls would). Returns per attempt 'disabled' when it
   * disabled an enabled webhook, 'recorded', or 'gone' when the webhook or the entry is gone.
   */
  petrelRecordWebhookAttempts: {
    numberOfKeys: null,
    lua: `
local out = {}
local kept, ttl = -tonumber(ARGV[1]), ARGV[2]
local a = 3
for k = 1, #KEYS, 3 do
  local webhook, entry, attempts = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local health = ARGV[a + 3]
  local result = 'recorded'
  if redis.call('EXISTS', entry) == 0 then
    result = 'gone'
  else
    redis.call('RPUSH', attempts, ARGV[a])
    redis.call('LTRIM', attempts, kept, -1)
    redis.call('PEXPIRE', attempts, ttl)
    redis.call('HSET', entry, 'status', ARGV[a + 1], 'next_attempt_ms', ARGV[a + 2])
    redis.call('HINCRBY', entry, 'run_attempts', 1)
    local status = redis.call('HGET', webhook, 'status')
    if not status then
      result = 'gone'
    elseif health == 'healthy' then
      redis.call('HSET', webhook, 'failing_since_ms', '')
    else
      if (redis.call('HGET', webhook, 'failing_since_ms') or '') == '' then
        redis.call('HSET', webhook, 'failing_since_ms', ARGV[a + 4])
      end
      if health == 'disable' and status == 'enabled' then
        redis.call('HSET', webhook, 'status', 'disabled', 'disabled_reason', ARGV[a + 5])
        result = 'disabled'
      end
    end
  end
  out[#out + 1] = result
  a = a + 6
end
return out
`,
  },
  /**
   * KEYS[1] an event log entry. Starts a replay: pending, a fresh run of the schedule. Returns
   * the replay's number, or -1 when the entry is gone.
   */
  petrelReplayWebhookEvent: {
    numberOfKeys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'status', 'pending', 'next_attempt_ms', '', 'run_attempts', 0)
return redis.call('HINCRBY', KEYS[1], 'replays', 1)
`,
  },
} as const satisfies Record<string, { numberOfKeys: number | null; lua: string }>;

export interface WebhookStoreCommands {
  petrelCreateWebhook(webhook: string, listing: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelUpdateWebhook(webhook: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteWebhook(webhook: string, listing: string, log: string, id: string): Promise<number>;
  petrelRotateWebhookSecret(webhook: string, secret: string, expiresMs: number): Promise<number>;
  petrelAddWebhookEvents(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
  petrelStartWebhookAttempt(webhook: string, entry: string): Promise<[string[], (string | null)[]]>;
  petrelRecordWebhookAttempts(numKeys: number, ...keysAndArgv: Arg[]): Promise<string[]>;
  petrelReplayWebhookEvent(entry: string): Promise<number>;
}
