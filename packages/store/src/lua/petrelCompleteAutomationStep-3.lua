-- KEYS[1] run, [2] steps, [3] active runs. ARGV: step key, completed JSON, iso, run id,
-- retentionMs, next count, then next key / pending JSON pairs. Returns {applied, runCompleted}.
local ACTIVE = $[automationRun.active]
if not ACTIVE[redis.call('HGET', KEYS[1], 'status')] then return {0, 0} end
--- @include "current-step-status"
local FINISHED = $[automationStep.finished]
if FINISHED[cur] then return {0, 0} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local iso, runId, retention, nextFrom = ARGV[3], ARGV[4], tonumber(ARGV[5]), 6
--- @include "finish-step"
