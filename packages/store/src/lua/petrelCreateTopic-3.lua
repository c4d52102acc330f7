-- KEYS[1] topic, KEYS[2] the team's topic listing (zset), KEYS[3] the team's events stream.
-- ARGV: id, createdMs, streamMaxLen, stream field, topic.created event JSON, then the topic's
-- field/value pairs. Returns 1.
redis.call('HSET', KEYS[1], unpack(ARGV, 6, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
