-- The term postings of the email search (email-search.ts): per team and day of creation, one
-- sorted set whose members all score 0, so it orders them as bytes (ZRANGE BYLEX,
-- https://redis.io/docs/latest/commands/zrangebylex/): member `<term> \0 <ms> \0 <id>`, <ms> the
-- email's creation ms as 13 digits, so a term's postings are one run of the set, newest last,
-- ties of one ms ordered by id as the listing (ZREVRANGE) orders them. A group posting (a term
-- every email of one write has, posted once for the write) ends in GROUP_MARK and the ids joined
-- by ','; no id starts with the mark or holds a ',' (ids are UUIDs), and the mark sorts after
-- every id character, so a ms's group postings come after its single ones. Reads read a ms that
-- holds a group whole (groups expanded, ids ordered), so they list what single postings would.
local SEP = '\0'
local GROUP_MARK = '~'
local GROUP_BYTE = string.byte(GROUP_MARK)
local DAY_MS = 86400000

-- A creation ms as the 13 digits members hold (ms since 1970 until the year 2286).
local function ms13(ms)
  ms = tostring(ms)
  if #ms < 13 then ms = string.rep('0', 13 - #ms) .. ms end
  return ms
end

-- The day number of a creation ms (its day key's).
local function dayOf(ms)
  return math.floor(tonumber(ms) / DAY_MS)
end

-- A member's ms (13 digits) and id or group, given the length of its term.
local function splitPosting(member, termLen)
  return string.sub(member, termLen + 2, termLen + 14), string.sub(member, termLen + 16)
end

local function isGroup(idOrGroup)
  return string.byte(idOrGroup, 1) == GROUP_BYTE
end

-- The ids of a group, in its order.
local function groupIds(group)
  local ids = {}
  for id in string.gmatch(string.sub(group, 2), '[^,]+') do ids[#ids + 1] = id end
  return ids
end

-- The postings of `term` at `ms` (13 digits) in the day set `key`.
local function postingsAt(key, term, ms)
  local at = term .. SEP .. ms .. SEP
  return redis.call('ZRANGE', key, '[' .. at, '(' .. term .. SEP .. ms .. '\1', 'BYLEX')
end

-- Every id posted under `term` at `ms` in `key`, groups expanded, each once, in ascending order.
local function idsAt(key, term, ms)
  local ids, seen, grouped = {}, {}, false
  local n = #term
  for _, m in ipairs(postingsAt(key, term, ms)) do
    local _, x = splitPosting(m, n)
    if isGroup(x) then
      grouped = true
      for _, id in ipairs(groupIds(x)) do
        if not seen[id] then seen[id] = true; ids[#ids + 1] = id end
      end
    elseif not seen[x] then
      seen[x] = true
      ids[#ids + 1] = x
    end
  end
  if grouped then table.sort(ids) end
  return ids
end
