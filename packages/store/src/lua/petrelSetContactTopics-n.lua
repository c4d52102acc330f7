-- KEYS[1] contact, [2] events stream, then N topic records, N topic subscription hashes.
-- ARGV: expected rev, mailbox, streamMaxLen, stream field, contact.topics.updated event JSON
-- ('' = none), then N subscriptions. Returns {1}, {0} to retry, {-1} when the contact is gone,
-- {-2, index} when a topic does not exist (nothing written).
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {-1} end
if rev ~= ARGV[1] then return {0} end
local n = (#KEYS - 2) / 2
for i = 1, n do
  if redis.call('EXISTS', KEYS[2 + i]) == 0 then return {-2, i - 1} end
end
for i = 1, n do redis.call('HSET', KEYS[2 + n + i], ARGV[2], ARGV[5 + i]) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[5] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5]) end
return {1}
