-- KEYS[1] definition. ARGV: the `rev` read, updated_at, schema JSON ('' clears it).
-- Optimistic: writes only while `rev` is the one read. Returns 1, 0 (changed meanwhile: read
-- again) or -1 (gone).
local REV_FIELD, REV_READ = 'rev', ARGV[1]
--- @include "compare-revision"
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'schema') else redis.call('HSET', KEYS[1], 'schema', ARGV[3]) end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[2], 'rev', tonumber(rev) + 1)
return 1
