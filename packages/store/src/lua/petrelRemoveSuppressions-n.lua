-- KEYS[1] mailbox → id hash, KEYS[2] suppression listing, KEYS[3] events stream, then per
-- entry its record and its origin's listing. ARGV: streamMaxLen, stream field, then per entry:
-- id, mailbox, suppression.removed event JSON. Returns per entry 1 if removed, 0 if gone.
local out = {}
local p = 3
for i = 4, #KEYS, 2 do
  local id, mailbox, ev = ARGV[p], ARGV[p + 1], ARGV[p + 2]
  p = p + 3
  if redis.call('DEL', KEYS[i]) == 1 then
    if redis.call('HGET', KEYS[1], mailbox) == id then redis.call('HDEL', KEYS[1], mailbox) end
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[i + 1], id)
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ev)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
