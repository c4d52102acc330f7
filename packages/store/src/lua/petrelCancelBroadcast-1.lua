-- KEYS[1] broadcast. scheduled | queued → canceled (a running fan-out stops at its next checkpoint).
local ALLOWED = $[broadcast.cancellable]
--- @include "status-guard"
redis.call('HSET', KEYS[1], 'status', $[broadcast:canceled])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
