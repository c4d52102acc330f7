-- KEYS: [1] grant-by-client hash, [2] grants zset, [3] the new grant's record, [4] the record of
-- the active grant the caller read for the client (= KEYS[3] when it read none). ARGV: client
-- id, new grant id, the grant id read ('' for none), scopes (space-separated), created_at,
-- created ms, every scope in display order (space-separated).
-- When the client's active grant is still the one read: none -> create the new grant; else add
-- the scopes to it. Otherwise (an approval or revocation in between) -> {'retry', current}.
-- Returns {'created' | 'updated' | 'retry', grant id}.
local current = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if current ~= ARGV[3] then return {'retry', current} end
if current == '' then
  redis.call('HSET', KEYS[3], 'id', ARGV[2], 'client_id', ARGV[1], 'scopes', ARGV[4], 'created_at', ARGV[5])
  redis.call('ZADD', KEYS[2], ARGV[6], ARGV[2])
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return {'created', ARGV[2]}
end
local have = {}
for s in string.gmatch(redis.call('HGET', KEYS[4], 'scopes') or '', '%S+') do have[s] = true end
for s in string.gmatch(ARGV[4], '%S+') do have[s] = true end
local out = {}
for s in string.gmatch(ARGV[7], '%S+') do if have[s] then out[#out + 1] = s end end
redis.call('HSET', KEYS[4], 'scopes', table.concat(out, ' '))
return {'updated', current}
