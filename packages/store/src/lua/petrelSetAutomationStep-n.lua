-- KEYS[1] run, [2] steps, then optionally [3] a wait set. ARGV: step key, expected status
-- ('' = no record), new JSON, wait field value (the event name; '' for none), wait member.
-- Writes the step if the run is running and the step is as expected; a wait also gets the
-- run's `wait:<step>` field and its entry in the contact's wait set. Returns 1 or 0.
local ACTIVE = $[automationRun.active]
if not ACTIVE[redis.call('HGET', KEYS[1], 'status')] then return 0 end
--- @include "current-step-status"
if cur ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'wait:' .. ARGV[1], ARGV[4])
  redis.call('SADD', KEYS[3], ARGV[5])
end
return 1
