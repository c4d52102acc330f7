-- KEYS[1] the received email's record (hash), [2] its raw message (string, compressed),
-- [3] the team's received-email listing (zset), [4] the team's events stream.
-- ARGV: id, createdMs, retentionMs, streamMaxLen, stream field, email.received event JSON,
-- raw bytes, then the record's field/value pairs.
-- Writes record, raw and listing entry with the retention as TTL, drops listing entries older
-- than the retention (their records have expired: the listing never pages through ids that no
-- longer resolve), and publishes the event, all at once. Returns 1.
local created, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 8, #ARGV))
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[7], 'PX', ttl)
redis.call('ZADD', KEYS[3], created, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', '(' .. (created - ttl))
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
