-- KEYS[1] inbox record, [2] listing, [3] address index, [4] events stream.
-- ARGV: id, mailbox, streamMaxLen, stream field, inbox.deleted JSON. The inbox stops existing
-- here (its threads are removed after, in batches). Returns 1, or 0 when it was gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
