-- Count n usage units (usage.store.ts). KEYS[1] the day's counter, KEYS[2] the month's.
-- ARGV: n, the day counter's ttl ms, the month counter's ttl ms (set when a counter is created).
local n = tonumber(ARGV[1])
if redis.call('INCRBY', KEYS[1], n) == n then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if redis.call('INCRBY', KEYS[2], n) == n then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return n
