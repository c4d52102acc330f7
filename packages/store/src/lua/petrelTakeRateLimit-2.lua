-- The GCRA step of the team's request rate (packages/core ratelimit: the rule and its header
-- values). KEYS[1] the team record, [2] the team's allowance (string: the theoretical arrival
-- time of the next request, ms). ARGV: default limit (requests per window; 0 = none), window ms.
-- The limit is the record's `rate_limit_rps` when set (0 there switches it off), else the
-- default. Time is the Redis server's (TIME), so API and SMTP processes on hosts whose clocks
-- differ share one allowance exactly. Returns {0} without a limit, else {limit, 1 admitted | 0
-- refused, TAT after the step (ms, decimal string), now (ms, decimal string)}.
local limit = tonumber(redis.call('HGET', KEYS[1], 'rate_limit_rps') or ARGV[1]) or 0
if limit <= 0 then return {0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
if tat < now then tat = now end
local after = tat + window / limit
if after - now > window + 0.001 then
  return {limit, 0, string.format('%.3f', tat), string.format('%.3f', now)}
end
redis.call('SET', KEYS[2], string.format('%.3f', after), 'PX', math.ceil(after - now) + 1000)
return {limit, 1, string.format('%.3f', after), string.format('%.3f', now)}
