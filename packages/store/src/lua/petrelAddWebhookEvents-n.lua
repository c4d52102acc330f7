-- KEYS: per entry, its endpoint's event log listing then the entry's hash.
-- ARGV: entryTtlMs, cutoffMs (older log entries leave the listing), then per entry: id, type,
-- created_at, createdMs, payload.
-- Writes the entries that do not exist (status pending). Returns per entry 2 when it wrote it,
-- 1 when it was there and a delivery may still be due (pending/attempting: a re-read after a
-- crash), 0 when it finished.
local DUE = $[webhookEvent.due]
local out = {}
local p = 3
for i = 1, #KEYS, 2 do
  local listing, entry = KEYS[i], KEYS[i + 1]
  local st = redis.call('HGET', entry, 'status')
  if st then
    out[#out + 1] = DUE[st] and 1 or 0
  else
    redis.call('HSET', entry, 'id', ARGV[p], 'type', ARGV[p + 1], 'created_at', ARGV[p + 2],
      'status', $[webhookEvent:pending], 'next_attempt_ms', '', 'payload', ARGV[p + 4], 'run_attempts', 0, 'replays', 0)
    redis.call('PEXPIRE', entry, ARGV[1])
    redis.call('ZADD', listing, ARGV[p + 3], ARGV[p])
    redis.call('ZREMRANGEBYSCORE', listing, '-inf', '(' .. ARGV[2])
    out[#out + 1] = 2
  end
  p = p + 5
end
return out
