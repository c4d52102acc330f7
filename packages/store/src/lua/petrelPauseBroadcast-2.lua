-- KEYS[1] broadcast, KEYS[2] the team's events stream. ARGV: the reason, streamMaxLen, stream
-- field, the `broadcast.paused` event JSON. queued | sent → paused (the protection rule, core
-- broadcasts/protection.ts): its emails not sent yet are held by the send path and the fan-out
-- stops at its next checkpoint; the event is published with the change, so once per pause. A
-- second pause (another worker's check) finds it paused: refused, no event.
local ALLOWED = $[broadcast.pausable]
--- @include "status-guard"
redis.call('HSET', KEYS[1], 'status', $[broadcast:paused], 'paused_reason', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])
--- @include "ok-record"
