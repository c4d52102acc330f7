-- KEYS[1] record, KEYS[2] chunks. ARGV: error, now (ISO). Fails a queued or running import
-- whoever owns it and deletes the file: 1, or 0 when it is gone or has ended.
local UNFINISHED = $[contactImport.unfinished]
if not UNFINISHED[redis.call('HGET', KEYS[1], 'status')] then return 0 end
redis.call('HSET', KEYS[1], 'status', $[contactImport:failed], 'completed_at', ARGV[2], 'error', ARGV[1])
redis.call('HDEL', KEYS[1], 'owner')
redis.call('PERSIST', KEYS[1])
redis.call('DEL', KEYS[2])
return 1
