-- KEYS[1] broadcast. ARGV: the reason. queued | sent → paused (the protection rule, core
-- broadcasts/protection.ts): its emails not sent yet are held by the send path and the fan-out
-- stops at its next checkpoint. A second pause (another worker's check) finds it paused: refused.
local ALLOWED = $[broadcast.pausable]
--- @include "status-guard"
redis.call('HSET', KEYS[1], 'status', $[broadcast:paused], 'paused_reason', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
