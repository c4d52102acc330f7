-- KEYS[1] webhook. ARGV: '1' when the patch enables it (the failure run and the reason it was
-- disabled are cleared), then field/value pairs. Returns 1, or 0 when the webhook is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if #ARGV > 1 then redis.call('HSET', KEYS[1], unpack(ARGV, 2, #ARGV)) end
if ARGV[1] == '1' then redis.call('HSET', KEYS[1], 'failing_since_ms', '', 'disabled_reason', '') end
return 1
