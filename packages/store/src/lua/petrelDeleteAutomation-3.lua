-- KEYS[1] automation, [2] listing, [3] its trigger's set. ARGV: id, expected trigger. 1, 0 gone, -1 retry.
local trigger = redis.call('HGET', KEYS[1], 'trigger')
if not trigger then return 0 end
if trigger ~= ARGV[2] then return -1 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
