-- Read only. KEYS[1] a segment's members (zset: contact ids scored by creation ms).
-- ARGV: score and id of the cursor ('' and '' for the start), limit. Returns up to `limit`
-- members after the cursor in (score, id) order, flat as id, score, id, score…
-- Members of one score sort by id (Redis orders equal scores lexicographically), and an import
-- writes a whole batch with one ms, so ties are common: the cursor member's rank gives the next
-- page in one step; when it left the segment since, its score's ties after its id come first,
-- then the higher scores.
local limit = tonumber(ARGV[3])
if ARGV[2] == '' then return redis.call('ZRANGE', KEYS[1], 0, limit - 1, 'WITHSCORES') end
local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
if rank and tonumber(redis.call('ZSCORE', KEYS[1], ARGV[2])) == tonumber(ARGV[1]) then
  return redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')
end
local out = {}
local ties = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[1], 'BYSCORE')
for _, id in ipairs(ties) do
  if #out >= limit * 2 then return out end
  if id > ARGV[2] then out[#out + 1] = id; out[#out + 1] = ARGV[1] end
end
local rest = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, limit - #out / 2, 'WITHSCORES')
for _, v in ipairs(rest) do out[#out + 1] = v end
return out
