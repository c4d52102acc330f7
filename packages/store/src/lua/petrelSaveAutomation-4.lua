-- KEYS[1] automation, [2] the team's listing, [3] the previous trigger's set, [4] the new
-- trigger's set. ARGV: id, mode ('create' | 'update'), createdMs, expected trigger (update: the
-- trigger the caller read), then field/value pairs. Returns 1; 0 when an updated automation is
-- gone; -1 when its trigger changed since the caller read it (read again and retry).
if ARGV[2] == 'update' then
  local trigger = redis.call('HGET', KEYS[1], 'trigger')
  if not trigger then return 0 end
  if trigger ~= ARGV[4] then return -1 end
  redis.call('SREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5, #ARGV)) end
redis.call('SADD', KEYS[4], ARGV[1])
return 1
