-- KEYS[1] topic, KEYS[2] events stream. ARGV: expected updated_at, streamMaxLen, stream field,
-- topic.updated event JSON, n (field/value args to set), the n args, then fields to delete.
-- Writes only if `updated_at` is still the one the caller read (it moves forward on every
-- write, so it versions the record). Returns 1, 0 to retry, -1 when the topic is gone.
local cur = redis.call('HGET', KEYS[1], 'updated_at')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
local ns = tonumber(ARGV[5])
if ns > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 6, 5 + ns)) end
if #ARGV > 5 + ns then redis.call('HDEL', KEYS[1], unpack(ARGV, 6 + ns, #ARGV)) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])
return 1
