-- KEYS[1] webhook, [2] the team's webhook listing, [3] the team's events stream.
-- ARGV: id, createdMs, consumer group, then the webhook's field/value pairs.
-- The team's first webhook (re)starts the dispatchers' consumer group at the end of the
-- stream, so events from before it are never delivered to it. Returns 1.
if redis.call('ZCARD', KEYS[2]) == 0 then
  local ok = pcall(redis.call, 'XGROUP', 'CREATE', KEYS[3], ARGV[3], '$', 'MKSTREAM')
  if not ok then redis.call('XGROUP', 'SETID', KEYS[3], ARGV[3], '$') end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 4, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return 1
