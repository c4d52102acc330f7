-- KEYS[1] record. ARGV: runId, then field/value pairs. Writes them only for the owner: 1, else 0.
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
