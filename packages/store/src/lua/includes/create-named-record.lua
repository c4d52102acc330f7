-- KEYS[1] record, [2] its listing (zset), [3] name → id index. ARGV: id, name, createdMs, then
-- the record's field/value args. The name is claimed first (HSETNX), so of two creates racing
-- on one name only one writes. Returns 1, or 0 when the name is taken.
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
