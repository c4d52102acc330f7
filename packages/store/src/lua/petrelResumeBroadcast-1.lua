-- KEYS[1] broadcast. paused → queued (a person resumed it): its fan-out job, scheduled again,
-- goes on from its cursor or finds no page left and finishes it; its held emails send at their
-- next look. `paused_reason` stays: it says why it was paused.
local ALLOWED = $[broadcast.resumable]
--- @include "status-guard"
redis.call('HSET', KEYS[1], 'status', $[broadcast:queued])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
