-- Group postings of the email search indexes (email-search.ts). A term every email of one write
-- has (an acceptance request's shared subject words and tags) is posted once for the write: one
-- member, GROUP_MARK then the emails' ids joined by ',', scored by their common creation ms, in
-- place of one member per email. No email id starts with GROUP_MARK or holds a ',' (ids are
-- UUIDs), so a member is a group exactly when it starts with the mark. Reads expand a group
-- where it stands: its ids share its score, so a score's ids (the members at that score, groups
-- expanded) are one block of the listing, ordered by id as ZRANGE orders ties.
local GROUP_MARK = '~'
local GROUP_BYTE = string.byte(GROUP_MARK)

local function isGroup(member)
  return string.byte(member, 1) == GROUP_BYTE
end

-- The ids of a group member, in its order.
local function groupIds(member)
  local ids = {}
  for id in string.gmatch(string.sub(member, 2), '[^,]+') do ids[#ids + 1] = id end
  return ids
end

-- Every id at `score` in the sorted set `key`, groups expanded, each once (an email of a group
-- also posted on its own by a retried write), in ascending order.
local function idsAtScore(key, score)
  local members = redis.call('ZRANGE', key, score, score, 'BYSCORE')
  local ids, seen, grouped = {}, {}, false
  for _, m in ipairs(members) do
    if isGroup(m) then
      grouped = true
      for _, id in ipairs(groupIds(m)) do
        if not seen[id] then seen[id] = true; ids[#ids + 1] = id end
      end
    elseif not seen[m] then
      seen[m] = true
      ids[#ids + 1] = m
    end
  end
  -- without a group the reply is already in ZRANGE's order
  if grouped then table.sort(ids) end
  return ids
end

-- The ids the group members at `score` in `key` hold, as a set.
local function groupedIdsAtScore(key, score)
  local set = {}
  for _, m in ipairs(redis.call('ZRANGE', key, score, score, 'BYSCORE')) do
    if isGroup(m) then
      for _, id in ipairs(groupIds(m)) do set[id] = true end
    end
  end
  return set
end

-- Takes `id` out of every group member at `score` in `key` (a group left empty goes).
local function ungroup(key, score, id)
  for _, m in ipairs(redis.call('ZRANGE', key, score, score, 'BYSCORE')) do
    if isGroup(m) then
      local kept, found = {}, false
      for _, x in ipairs(groupIds(m)) do
        if x == id then found = true else kept[#kept + 1] = x end
      end
      if found then
        redis.call('ZREM', key, m)
        if #kept > 0 then redis.call('ZADD', key, score, GROUP_MARK .. table.concat(kept, ',')) end
      end
    end
  end
end
