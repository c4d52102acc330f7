-- KEYS[1] contact, [2] contact listing, [3] mailbox → id, [4] unsubscribed mailboxes,
-- [5] the contact's segments, [6] events stream, then S segment records, S segment member
-- listings, T topic records, T topic subscription hashes.
-- ARGV: id, mailbox, createdMs, unsubscribed ('1'|'0'), S, T, streamMaxLen, stream field,
-- contact.created event JSON, F, F field/value args, S segment ids, T subscriptions.
-- Returns {'ok', id} | {'taken', existing id} | {'no_segment', index} | {'no_topic', index}.
local ns, nt = tonumber(ARGV[5]), tonumber(ARGV[6])
local existing = redis.call('HGET', KEYS[3], ARGV[2])
if existing then return {'taken', existing} end
for i = 1, ns do
  if redis.call('EXISTS', KEYS[6 + i]) == 0 then return {'no_segment', tostring(i - 1)} end
end
for i = 1, nt do
  if redis.call('EXISTS', KEYS[6 + 2 * ns + i]) == 0 then return {'no_topic', tostring(i - 1)} end
end
local nf = tonumber(ARGV[10])
redis.call('HSET', KEYS[1], unpack(ARGV, 11, 10 + nf))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
if ARGV[4] == '1' then redis.call('SADD', KEYS[4], ARGV[2]) else redis.call('SREM', KEYS[4], ARGV[2]) end
local p = 11 + nf
for i = 1, ns do
  redis.call('SADD', KEYS[5], ARGV[p])
  redis.call('ZADD', KEYS[6 + ns + i], ARGV[3], ARGV[1])
  p = p + 1
end
for i = 1, nt do
  redis.call('HSET', KEYS[6 + 2 * ns + nt + i], ARGV[2], ARGV[p])
  p = p + 1
end
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[7], '*', ARGV[8], ARGV[9])
return {'ok', ARGV[1]}
