-- KEYS[1] broadcast. ARGV: N, N field/value args to set, then fields to delete (null). Only a
-- draft's content changes.
local ALLOWED = $[broadcast.editable]
--- @include "status-guard"
local n = tonumber(ARGV[1])
if n > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, 1 + n)) end
if #ARGV > 1 + n then redis.call('HDEL', KEYS[1], unpack(ARGV, 2 + n, #ARGV)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
