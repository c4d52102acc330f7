-- Index new emails. KEYS[1..S] the team's status indexes, in EMAIL_STATUSES order (S = ARGV[1]);
-- KEYS[S + 1] the team's listing (email ids by creation ms); then the day sets
-- (email-search-postings.lua) of D consecutive days from day ARGV[4] (D = ARGV[3]). ARGV: S, N
-- (the emails), D, first day, the retention less the caller's clock (a day set's TTL is its day's
-- end + retention - now), the write's creation ms, G, the G terms every email of the call has
-- (its shared terms), then per email: id, its status's rank, the count of its other terms, and
-- those terms.
-- An email is indexed only when the listing holds it (its record was written), at its listing
-- ms — one ZMSCORE for the call, no read per email. An email created by this write (its ms is
-- the write's) is posted under its status, and under each of its terms in its day's set when
-- that day is one of the D and within the retention; an older one (a retried write's record,
-- whose status may have moved since) under its terms only: the write that created it posted
-- its status, which only the scripts that move it change. The shared terms are posted once for
-- the write's new emails, as one group posting under each (a group of one is a single
-- posting); an older email is posted under them on its own. Each day set and status index gets
-- one ZADD for all the call's postings in it; a day set expires a retention after its day ends,
-- so no posting needs trimming. Returns how many were indexed.
--- @include "email-search-postings"
local ns = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local nd = tonumber(ARGV[3])
local day0 = tonumber(ARGV[4])
local ttlBase = tonumber(ARGV[5])
local created = tonumber(ARGV[6])
local ng = tonumber(ARGV[7])
local shared = {}
for j = 1, ng do shared[j] = ARGV[7 + j] end
-- where each email's arguments start
local at, ids = {}, {}
local p = 8 + ng
for i = 1, n do
  at[i] = p
  ids[i] = ARGV[p]
  p = p + 3 + tonumber(ARGV[p + 2])
end
-- unpack in slices: Lua's C stack holds a few thousand values
local listed = {}
for from = 1, n, 1000 do
  local part = redis.call('ZMSCORE', KEYS[ns + 1], unpack(ids, from, math.min(from + 999, n)))
  for k = 1, #part do listed[from + k - 1] = part[k] end
end
-- per status rank (1-based) and per day (1..nd): the ZADD arguments
local statusAdds, dayAdds = {}, {}
local function push(lists, k, score, member)
  local list = lists[k]
  if not list then list = {}; lists[k] = list end
  list[#list + 1] = score
  list[#list + 1] = member
end
local indexed = 0
local group, groupDay, groupMs = {}, nil, nil
for i = 1, n do
  local score = listed[i]
  if score then
    indexed = indexed + 1
    local id, q = ids[i], at[i]
    local fresh = tonumber(score) == created
    if fresh then
      local rank = tonumber(ARGV[q + 1])
      if rank >= 0 and rank < ns then push(statusAdds, rank + 1, score, id) end
    end
    local d = dayOf(score) - day0 + 1
    -- a day past the retention has no set to post to
    if d >= 1 and d <= nd and (day0 + d) * DAY_MS + ttlBase > 0 then
      local ms = ms13(score)
      local tail = SEP .. ms .. SEP .. id
      for j = 1, tonumber(ARGV[q + 2]) do push(dayAdds, d, 0, ARGV[q + 2 + j] .. tail) end
      if fresh then
        group[#group + 1] = id
        groupDay, groupMs = d, ms
      else
        for j = 1, ng do push(dayAdds, d, 0, shared[j] .. tail) end
      end
    end
  end
end
if ng > 0 and #group > 0 then
  local x = #group == 1 and group[1] or GROUP_MARK .. table.concat(group, ',')
  for j = 1, ng do push(dayAdds, groupDay, 0, shared[j] .. SEP .. groupMs .. SEP .. x) end
end
local function zadd(key, list)
  for from = 1, #list, 1000 do
    redis.call('ZADD', key, unpack(list, from, math.min(from + 999, #list)))
  end
end
for k = 1, ns do
  if statusAdds[k] then zadd(KEYS[k], statusAdds[k]) end
end
for d = 1, nd do
  if dayAdds[d] then
    zadd(KEYS[ns + 1 + d], dayAdds[d])
    redis.call('PEXPIRE', KEYS[ns + 1 + d], (day0 + d) * DAY_MS + ttlBase)
  end
end
return indexed
