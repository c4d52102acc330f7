-- KEYS[1] broadcast. ARGV: sent_at (ISO). queued → sent: returns 1, or 0 when not queued.
local FANNING_OUT = $[broadcast.fanningOut]
if not FANNING_OUT[redis.call('HGET', KEYS[1], 'status')] then return 0 end
redis.call('HSET', KEYS[1], 'status', $[broadcast:sent], 'sent_at', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
