-- KEYS[1] property, [2] property listing, [3] key → id. ARGV: id. Values stored under the id
-- on contacts become unreadable with it. Returns 1, or 0 when it is gone.
local key = redis.call('HGET', KEYS[1], 'key')
if not key then return 0 end
if redis.call('HGET', KEYS[3], key) == ARGV[1] then redis.call('HDEL', KEYS[3], key) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
