-- KEYS[1] template, KEYS[2] alias index, KEYS[3] listing zset, KEYS[4..] its version keys.
-- ARGV: id, expected rev, versionTtlMs. Returns 1, 0 to retry (rev changed), -1 when gone.
local h = redis.call('HMGET', KEYS[1], 'rev', 'alias')
if not h[1] then return -1 end
if h[1] ~= ARGV[2] then return 0 end
local alias = h[2] or ''
if alias ~= '' and redis.call('HGET', KEYS[2], alias) == ARGV[1] then redis.call('HDEL', KEYS[2], alias) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for i = 4, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
