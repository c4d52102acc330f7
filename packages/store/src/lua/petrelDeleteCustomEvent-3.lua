-- KEYS[1] definition, [2] listing, [3] name index. ARGV: id, name.
-- The name's entry goes only while it still names this definition. Returns 1, or 0 when the
-- definition is gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return 1
