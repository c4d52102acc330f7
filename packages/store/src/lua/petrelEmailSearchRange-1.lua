-- Read only. KEYS[1] an index (email ids by creation ms). ARGV: direction (`desc`: towards
-- older, `asc`: towards newer), cursor score and id ('' '' = from the newest / oldest end),
-- count, bound (the oldest score still listed, for `desc`; ignored for `asc`).
-- Returns up to `count` members strictly past the cursor in listing order (score, then id, as
-- ZREVRANGE orders them), flat as id, score, …. The cursor need not be a member: an email
-- that left a status index since still marks the place by its score and id.
local desc = ARGV[1] == 'desc'
local s, cid, count, bound = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local out = {}
if s ~= '' then
  local ties = redis.call('ZRANGE', KEYS[1], s, s, 'BYSCORE')
  if desc then
    for i = #ties, 1, -1 do
      if ties[i] < cid then out[#out + 1] = ties[i]; out[#out + 1] = s end
      if #out >= count * 2 then return out end
    end
  else
    for i = 1, #ties do
      if ties[i] > cid then out[#out + 1] = ties[i]; out[#out + 1] = s end
      if #out >= count * 2 then return out end
    end
  end
end
local rest
if desc then
  rest = redis.call('ZRANGE', KEYS[1], s == '' and '+inf' or '(' .. s, bound, 'BYSCORE', 'REV', 'LIMIT', 0, count - #out / 2, 'WITHSCORES')
else
  rest = redis.call('ZRANGE', KEYS[1], s == '' and '-inf' or '(' .. s, '+inf', 'BYSCORE', 'LIMIT', 0, count - #out / 2, 'WITHSCORES')
end
for _, v in ipairs(rest) do out[#out + 1] = v end
return out
