-- KEYS[1] topic, KEYS[2] topic listing, KEYS[3] the topic's subscriptions hash, KEYS[4] events
-- stream. ARGV: id, expected updated_at, streamMaxLen, stream field, topic.deleted event JSON.
-- Returns 1, 0 to retry (changed since read), -1 when the topic is gone.
local REV_FIELD, REV_READ = 'updated_at', ARGV[2]
--- @include "compare-revision"
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
