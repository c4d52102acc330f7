-- KEYS[1] run, [2] steps, [3] active runs, [4] the wait's set. ARGV: step key, completed JSON,
-- iso, run id, retentionMs, next count, next pairs…, then: wait member, event name ('' for a
-- timeout), event payload JSON. The compare-and-set of a wait: only the caller whose HDEL of
-- `wait:<step>` removes it goes on. A timeout also leaves the wait set; an event's dispatch
-- removes the entry itself once it has queued the next steps (so a dispatch that died between
-- the two finds the entry again and finishes). Returns {won, runCompleted}.
local ACTIVE = $[automationRun.active]
if not ACTIVE[redis.call('HGET', KEYS[1], 'status')] then return {0, 0} end
if redis.call('HDEL', KEYS[1], 'wait:' .. ARGV[1]) == 0 then return {0, 0} end
local tail = 7 + 2 * tonumber(ARGV[6])
if ARGV[tail + 1] ~= '' then
  redis.call('HSET', KEYS[2], 'we:' .. ARGV[tail + 1], ARGV[tail + 2])
else
  redis.call('SREM', KEYS[4], ARGV[tail])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local iso, runId, retention, nextFrom = ARGV[3], ARGV[4], tonumber(ARGV[5]), 6
--- @include "finish-step"
