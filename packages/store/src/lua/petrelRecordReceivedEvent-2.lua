-- KEYS[1] the team's received-event listing (zset by ms), [2] id → JSON (hash).
-- ARGV: id, receivedMs, JSON, cap. An id recorded already is left as it is (a retry); past the
-- cap the oldest entries go from both keys. Returns 1, or 0 for a repeat.
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if excess > 0 then
  local gone = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #gone, 2 do redis.call('HDEL', KEYS[2], gone[i]) end
end
return 1
