-- KEYS[1] broadcast. ARGV: dueMs, due (ISO). draft → scheduled.
local ALLOWED = $[broadcast.schedulable]
--- @include "status-guard"
redis.call('HSET', KEYS[1], 'status', $[broadcast:scheduled], 'due_ms', ARGV[1], 'scheduled_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
