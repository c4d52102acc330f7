-- KEYS[1] template, KEYS[2] its first version, KEYS[3] listing zset, KEYS[4] alias index.
-- ARGV: id, alias ('' = none), createdMs, n template field-value args, then the template
-- pairs, then the version pairs. Returns 1, or 0 when the alias is taken.
local alias = ARGV[2]
if alias ~= '' then
  if redis.call('HSETNX', KEYS[4], alias, ARGV[1]) == 0 then return 0 end
end
local nt = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + nt))
redis.call('HSET', KEYS[2], unpack(ARGV, 5 + nt, #ARGV))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
