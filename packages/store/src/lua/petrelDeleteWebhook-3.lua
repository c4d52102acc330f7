-- KEYS[1] webhook, [2] listing, [3] its event log listing. ARGV: id. The log's entries expire
-- on their own (their TTL); jobs still queued find no webhook and end. Returns 1, or 0 when gone.
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
