-- KEYS[1] broadcast, KEYS[2] the team's broadcast listing (zset). ARGV: id, createdMs, then
-- the record's field/value pairs. Returns 1.
redis.call('HSET', KEYS[1], unpack(ARGV, 3, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
