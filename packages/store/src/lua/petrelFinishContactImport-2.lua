-- KEYS[1] record, KEYS[2] chunks. ARGV: runId, then field/value pairs (the outcome). For the
-- owner only: writes the outcome, lets the run go and deletes the file. 1, else 0.
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('HDEL', KEYS[1], 'owner')
redis.call('DEL', KEYS[2])
return 1
