-- Read only. KEYS[1] an index (ids by creation ms; the inboxes' indexes, inboxes.store.ts). ARGV:
-- direction (`desc`: towards older, `asc`: towards newer), cursor score and id ('' '' = from
-- the newest / oldest end), count, bound (the oldest score still listed, for `desc`; ignored
-- for `asc`).
-- Returns up to `count` ids strictly past the cursor in listing order (score, then id, as
-- ZREVRANGE orders them), flat as id, score, …. The cursor need not be listed: an id that left
-- the index since still marks the place by its score and id.
local desc = ARGV[1] == 'desc'
local s, cid, count, bound = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local out = {}
local n = 0
-- the ids at the cursor's score past it, in listing order
if s ~= '' then
  local ids = redis.call('ZRANGE', KEYS[1], s, s, 'BYSCORE')
  local from, to, step = 1, #ids, 1
  if desc then from, to, step = #ids, 1, -1 end
  for i = from, to, step do
    local id = ids[i]
    if (desc and id < cid) or (not desc and id > cid) then
      out[#out + 1] = id
      out[#out + 1] = s
      n = n + 1
      if n >= count then return out end
    end
  end
end
local lo = s == '' and (desc and '+inf' or '-inf') or '(' .. s
local rest
if desc then
  rest = redis.call('ZRANGE', KEYS[1], lo, bound, 'BYSCORE', 'REV', 'LIMIT', 0, count - n, 'WITHSCORES')
else
  rest = redis.call('ZRANGE', KEYS[1], lo, '+inf', 'BYSCORE', 'LIMIT', 0, count - n, 'WITHSCORES')
end
for i = 1, #rest do out[#out + 1] = rest[i] end
return out
