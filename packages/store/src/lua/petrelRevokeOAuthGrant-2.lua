-- KEYS: [1] the grant's record, [2] grant-by-client hash. ARGV: grant id, revoked_at, reason.
-- Marks the grant revoked (every token check reads this field) and ends it as its client's
-- active grant. Returns 0 when there is no such grant, 2 when it was revoked already, 1 now.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'revoked_at') == 1 then return 2 end
redis.call('HSET', KEYS[1], 'revoked_at', ARGV[2], 'revoked_reason', ARGV[3])
local client = redis.call('HGET', KEYS[1], 'client_id')
if client and redis.call('HGET', KEYS[2], client) == ARGV[1] then redis.call('HDEL', KEYS[2], client) end
return 1
