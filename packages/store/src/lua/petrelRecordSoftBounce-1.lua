-- KEYS[1] an address's soft-bounce streak (hash). ARGV: email id, now (ms), ttl (ms).
-- Counts the email as the streak's latest soft bounce unless it is already (`last`): a re-run of
-- the same email's delivery never counts twice. The first bounce stamps `first`. The key expires
-- `ttl` after this call. Returns { emails, first }.
local last = redis.call('HGET', KEYS[1], 'last')
if last ~= ARGV[1] then
  redis.call('HINCRBY', KEYS[1], 'n', 1)
  redis.call('HSET', KEYS[1], 'last', ARGV[1])
  redis.call('HSETNX', KEYS[1], 'first', ARGV[2])
end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return { tonumber(redis.call('HGET', KEYS[1], 'n')), tonumber(redis.call('HGET', KEYS[1], 'first')) }
