-- KEYS[1] template. ARGV: expected current version id, now (ISO).
-- Returns 1, 0 when the current version changed meanwhile, -1 when the template is gone.
local cur = redis.call('HGET', KEYS[1], 'current_version_id')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'published_version_id', cur, 'published_at', ARGV[2], 'updated_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
