-- KEYS[1] broadcast. ARGV: nowMs. scheduled → queued with `started_ms` = now (fixed from then
-- on: the emails' ids derive from it); a queued one (a fan-out resumed) is returned as it is.
local ALLOWED = $[broadcast.startable]
--- @include "status-guard"
if st == $[broadcast:scheduled] then
  redis.call('HSET', KEYS[1], 'status', $[broadcast:queued], 'started_ms', ARGV[1])
  redis.call('HINCRBY', KEYS[1], 'rev', 1)
end
--- @include "ok-record"
