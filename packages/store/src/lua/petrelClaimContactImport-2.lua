-- KEYS[1] record, KEYS[2] chunks. ARGV: runId, now (ISO). Takes a queued or running import
-- for the run and removes the expiries; returns the record's fields flat, or nil when gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local UNFINISHED = $[contactImport.unfinished]
if UNFINISHED[redis.call('HGET', KEYS[1], 'status')] then
  redis.call('HSET', KEYS[1], 'status', $[contactImport:in_progress], 'owner', ARGV[1])
  redis.call('HSETNX', KEYS[1], 'started_at', ARGV[2])
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
end
return redis.call('HGETALL', KEYS[1])
