-- KEYS[1] domain, [2] the team's domain listing, [3] name → id hash, [4] events stream.
-- ARGV: id, name, createdMs, streamMaxLen, stream field, domain.created event JSON, then the
-- domain's field/value pairs. Returns 1, or 0 when the team has a domain of this name.
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
