-- KEYS[1] run, [2] its steps, [3] the automation's runs, [4] its active runs. ARGV: run id,
-- createdMs, first step key, first step JSON, then the run's field/value pairs. Returns 1, or
-- 0 when the run exists (the same event delivered twice).
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5, #ARGV))
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
return 1
