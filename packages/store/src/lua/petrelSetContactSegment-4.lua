-- KEYS[1] contact, [2] its segments, [3] segment, [4] segment member listing.
-- ARGV: contact id, segment id, 'add' | 'remove'. Adding is idempotent. Returns 1 (added, or
-- removed), 0 (remove: was not a member), -1 no contact, -2 no segment.
local ms = redis.call('HGET', KEYS[1], 'created_ms')
if not ms then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local changed
if ARGV[3] == 'add' then
  changed = redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('ZADD', KEYS[4], ms, ARGV[1])
  if changed == 0 then return 1 end
else
  changed = redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[1])
  if changed == 0 then return 0 end
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
