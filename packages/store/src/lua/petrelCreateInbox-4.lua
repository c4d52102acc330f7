-- KEYS[1] inbox record, [2] the team's inbox listing, [3] address index, [4] events stream.
-- ARGV: id, createdMs, mailbox, streamMaxLen, stream field, inbox.created JSON, record pairs.
-- Returns 1, or 0 when the address has an inbox already (nothing written).
if redis.call('HSETNX', KEYS[3], ARGV[3], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
