-- Shared tail of completing a step: KEYS[1] run, KEYS[2] steps, KEYS[3] active runs.
-- Expects locals `iso`, `runId`, `retention`, `nextFrom` (ARGV index of the next-step count,
-- followed by key/pending-JSON pairs). A next step that has a record already (two branches
-- joining) is not counted twice. Returns {1, runCompleted}.
local n = tonumber(ARGV[nextFrom])
local added = 0
for i = 1, n do
  local k = ARGV[nextFrom + 2 * i - 1]
  if redis.call('HSETNX', KEYS[2], k, ARGV[nextFrom + 2 * i]) == 1 then added = added + 1 end
end
local open = redis.call('HINCRBY', KEYS[1], 'open', added - 1)
if open <= 0 then
  redis.call('HSET', KEYS[1], 'status', $[automationRun:completed], 'completed_at', iso)
  redis.call('SREM', KEYS[3], runId)
  --- @include "expire-run"
  return {1, 1}
end
return {1, 0}
