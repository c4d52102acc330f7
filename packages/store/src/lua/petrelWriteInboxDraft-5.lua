-- One write of a draft with its `inbox.draft.*` event, and the `drafts` count of the thread a
-- reply draft belongs to (bumping the thread's `rev`, so a thread write read before this one
-- retries with the new count).
--
-- KEYS: [1] draft hash, [2] its files hash, [3] the inbox's open drafts (zset by update ms),
-- [4] events stream, [5] the thread hash (the draft hash again for a standalone draft).
-- ARGV: [1] op (create, update, remove, sent), [2] draft id, [3] ms, [4] streamMaxLen,
-- [5] stream field, [6] event JSON, [7] draft JSON, [8] thread given 1/0, [9] replace files
-- 1/0, [10] kept ms of a sent draft (its files too: a replayed send rebuilds the same
-- email), then file id/content pairs.
-- Returns 1; 0 when the draft does not exist (create: it exists already); 2 when it was sent.
local op, id, ms = ARGV[1], ARGV[2], ARGV[3]
local exists = redis.call('EXISTS', KEYS[1]) == 1
local function threadDrafts(delta)
  if ARGV[8] ~= '1' or not redis.call('HGET', KEYS[5], 'rev') then return end
  local n = (tonumber(redis.call('HGET', KEYS[5], 'drafts')) or 0) + delta
  if n < 0 then n = 0 end
  redis.call('HSET', KEYS[5], 'drafts', tostring(n))
  redis.call('HINCRBY', KEYS[5], 'rev', 1)
end
if op == 'create' then
  if exists then return 0 end
  threadDrafts(1)
else
  if not exists then return 0 end
  if redis.call('HGET', KEYS[1], 'sent') == '1' then return 2 end
  if op ~= 'update' then threadDrafts(-1) end
end
if op == 'remove' then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[3], id)
else
  redis.call('HSET', KEYS[1], 'record', ARGV[7])
  if ARGV[9] == '1' then redis.call('DEL', KEYS[2]) end
  if #ARGV > 10 then redis.call('HSET', KEYS[2], unpack(ARGV, 11, #ARGV)) end
  if op == 'sent' then
    redis.call('HSET', KEYS[1], 'sent', '1')
    redis.call('ZREM', KEYS[3], id)
    redis.call('PEXPIRE', KEYS[1], ARGV[10])
    redis.call('PEXPIRE', KEYS[2], ARGV[10])
  else
    redis.call('ZADD', KEYS[3], ms, id)
  end
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
