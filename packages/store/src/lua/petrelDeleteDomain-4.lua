-- KEYS[1] domain, [2] listing, [3] name → id hash, [4] events stream. ARGV: id, name,
-- expected rev, streamMaxLen, stream field, domain.deleted event JSON.
-- Returns 1, 0 to retry (changed since read), -1 when the domain is gone.
local REV_FIELD, REV_READ = 'rev', ARGV[3]
--- @include "compare-revision"
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
