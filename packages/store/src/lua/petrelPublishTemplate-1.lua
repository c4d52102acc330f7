-- KEYS[1] template. ARGV: expected current version id, now (ISO).
-- Returns 1, 0 when the current version changed meanwhile, -1 when the template is gone.
local REV_FIELD, REV_READ = 'current_version_id', ARGV[1]
--- @include "compare-revision"
redis.call('HSET', KEYS[1], 'published_version_id', rev, 'published_at', ARGV[2], 'updated_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
