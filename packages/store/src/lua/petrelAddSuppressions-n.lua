-- KEYS[1] mailbox → id hash, KEYS[2] suppression listing (zset), KEYS[3] the listing of this
-- origin (zset), KEYS[4] events stream, KEYS[5..4+n] a record key per address (for a new id).
-- ARGV: streamMaxLen, stream field, createdMs, created_at, origin, source_id ('' = none), then
-- per address: mailbox, new id, email, suppression.added event JSON.
-- An address whose mailbox is listed (before, or earlier in this call) keeps its entry.
-- Returns per address { id, 1 if created else 0 }.
local out = {}
local p = 7
for i = 5, #KEYS do
  local mailbox, id, email, ev = ARGV[p], ARGV[p + 1], ARGV[p + 2], ARGV[p + 3]
  p = p + 4
  local existing = redis.call('HGET', KEYS[1], mailbox)
  if existing then
    out[#out + 1] = {existing, 0}
  else
    redis.call('HSET', KEYS[i], 'id', id, 'email', email, 'origin', ARGV[5], 'created_at', ARGV[4])
    if ARGV[6] ~= '' then redis.call('HSET', KEYS[i], 'source_id', ARGV[6]) end
    redis.call('HSET', KEYS[1], mailbox, id)
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    redis.call('ZADD', KEYS[3], ARGV[3], id)
    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ev)
    out[#out + 1] = {id, 1}
  end
end
return out
