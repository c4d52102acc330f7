-- KEYS[1] webhook. ARGV: new secret, ms until which the replaced one keeps signing.
-- Returns 1, or 0 when the webhook is gone.
local old = redis.call('HGET', KEYS[1], 'secret')
if not old then return 0 end
redis.call('HSET', KEYS[1], 'secret', ARGV[1], 'previous_secret', old, 'previous_secret_expires_ms', ARGV[2])
return 1
