-- Read only. KEYS: indexes (email-search.ts); the first ARGV[1] of them may hold group members
-- (term indexes), the others only ids (status indexes). ARGV: that count, then candidates as
-- id, score (its listing score), ….
-- Returns the candidates' ids, in order, that every index lists: as a member (ZMSCORE), or in a
-- group member at the candidate's score (email-search-group.lua).
--- @include "email-search-group"
local grouping = tonumber(ARGV[1])
local n = (#ARGV - 1) / 2
local ids, keep = {}, {}
for i = 1, n do ids[i] = ARGV[2 * i]; keep[i] = true end
for k = 1, #KEYS do
  local found = redis.call('ZMSCORE', KEYS[k], unpack(ids))
  -- per score: the ids its group members hold
  local grouped = {}
  for i = 1, n do
    if keep[i] and not found[i] then
      local set
      if k <= grouping then
        local score = ARGV[2 * i + 1]
        set = grouped[score]
        if not set then set = groupedIdsAtScore(KEYS[k], score); grouped[score] = set end
      end
      if not (set and set[ids[i]]) then keep[i] = false end
    end
  end
end
local out = {}
for i = 1, n do
  if keep[i] then out[#out + 1] = ids[i] end
end
return out
