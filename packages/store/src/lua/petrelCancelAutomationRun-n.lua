-- KEYS[1] run, [2] steps, [3] active runs, then the wait sets of its open waits. ARGV: iso,
-- run id, retentionMs, then per wait set: its member. Cancels a running run: its open waits
-- end (fields and set entries) and its pending jobs find it over. Returns 1, or 0.
local ACTIVE = $[automationRun.active]
if not ACTIVE[redis.call('HGET', KEYS[1], 'status')] then return 0 end
redis.call('HSET', KEYS[1], 'status', $[automationRun:cancelled], 'completed_at', ARGV[1])
redis.call('SREM', KEYS[3], ARGV[2])
local fields = redis.call('HKEYS', KEYS[1])
for _, f in ipairs(fields) do
  if string.sub(f, 1, 5) == 'wait:' then redis.call('HDEL', KEYS[1], f) end
end
for i = 4, #KEYS do redis.call('SREM', KEYS[i], ARGV[i]) end
local retention = tonumber(ARGV[3])
--- @include "expire-run"
return 1
