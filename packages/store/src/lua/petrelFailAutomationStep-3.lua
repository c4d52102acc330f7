-- KEYS[1] run, [2] steps, [3] active runs. ARGV: step key, failed JSON, iso, run id,
-- retentionMs. Fails the step and the run. Returns 1, or 0 when the run was over.
local ACTIVE = $[automationRun.active]
if not ACTIVE[redis.call('HGET', KEYS[1], 'status')] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'status', $[automationRun:failed], 'completed_at', ARGV[3])
redis.call('SREM', KEYS[3], ARGV[4])
local retention = tonumber(ARGV[5])
--- @include "expire-run"
return 1
