-- The team's daily sending quota. KEYS[1] the team record, [2] the counter of the day. ARGV:
-- count, default quota (0 = none), the counter's TTL (ms). The quota is the record's
-- `daily_quota` when set (0 there switches it off), else the default. Takes `count` only when
-- all of it fits. Returns {0} without a quota, else {quota, used, 1 taken | 0 refused}.
local limit = tonumber(redis.call('HGET', KEYS[1], 'daily_quota') or ARGV[2]) or 0
if limit <= 0 then return {0} end
local n = tonumber(ARGV[1])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used + n > limit then return {limit, used, 0} end
used = redis.call('INCRBY', KEYS[2], n)
if used == n then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {limit, used, 1}
