-- Read only. KEYS[1] an index (email ids by creation ms). ARGV: direction (`desc`: towards
-- older, `asc`: towards newer), cursor score and id ('' '' = from the newest / oldest end),
-- count, bound (the oldest score still listed, for `desc`; ignored for `asc`).
-- Returns up to `count` ids strictly past the cursor in listing order (score, then id, as
-- ZREVRANGE orders them), flat as id, score, …, group members expanded to their ids
-- (email-search-group.lua: a score holding a group is read whole and ordered by id). The
-- cursor need not be listed: an email that left a status index since still marks the place by
-- its score and id.
--- @include "email-search-group"
local desc = ARGV[1] == 'desc'
local s, cid, count, bound = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local out = {}
local n = 0
-- the ids at `score` past `past` (nil: all of them) in listing order; true once `count` are out
local function emitScore(score, past)
  local ids = idsAtScore(KEYS[1], score)
  local from, to, step = 1, #ids, 1
  if desc then from, to, step = #ids, 1, -1 end
  for i = from, to, step do
    local id = ids[i]
    if past == nil or (desc and id < past) or (not desc and id > past) then
      out[#out + 1] = id
      out[#out + 1] = score
      n = n + 1
      if n >= count then return true end
    end
  end
  return false
end
if s ~= '' and emitScore(s, cid) then return out end
local lo = s == '' and (desc and '+inf' or '-inf') or '(' .. s
while true do
  local rest
  if desc then
    rest = redis.call('ZRANGE', KEYS[1], lo, bound, 'BYSCORE', 'REV', 'LIMIT', 0, count - n, 'WITHSCORES')
  else
    rest = redis.call('ZRANGE', KEYS[1], lo, '+inf', 'BYSCORE', 'LIMIT', 0, count - n, 'WITHSCORES')
  end
  -- the score of the first group member: the members before that score are as listed
  local gs
  for i = 1, #rest, 2 do
    if isGroup(rest[i]) then gs = rest[i + 1]; break end
  end
  for i = 1, #rest, 2 do
    if rest[i + 1] == gs then break end
    out[#out + 1] = rest[i]
    out[#out + 1] = rest[i + 1]
    n = n + 1
  end
  -- no group: the reply was all there is up to `count`
  if not gs then return out end
  if emitScore(gs, nil) then return out end
  lo = '(' .. gs
end
