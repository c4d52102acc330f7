-- Index new emails. KEYS[1..S] the team's status indexes, in EMAIL_STATUSES order (S = ARGV[1]);
-- then the N emails' record keys (N = ARGV[2]); then the day sets (email-search-postings.lua)
-- of D consecutive days from day ARGV[4] (D = ARGV[3]). ARGV: S, N, D, first day, the ms each day
-- set lives after its day ends (the retention) less the caller's clock (ARGV[5]: the set's TTL
-- is its day's end + retention - now), G, the G terms every email of the call has (its shared
-- terms), then per email: id, the count of its other terms, and those terms.
-- An email is indexed only while its record exists, by its `created_ms`: under its CURRENT status
-- (read here, so an email whose status moved before this ran lands in the right index) and,
-- when its day is one of the D and within the retention, under each of its terms in that day's
-- set (an older record, a retried write's, was posted by the write that created it). The shared terms are posted once
-- for the call's group: the emails with the call's newest ms (the records this write created; a
-- retried write's older records stay apart), as one group posting under each shared term; an
-- email outside the group is posted under them on its own, as is a group of one. Each day set
-- and status index gets one ZADD for all the call's postings in it; a day set expires a
-- retention after its day ends, so no posting needs trimming. Returns how many were indexed.
--- @include "email-search-postings"
local ns = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local nd = tonumber(ARGV[3])
local day0 = tonumber(ARGV[4])
local ttlBase = tonumber(ARGV[5])
local ng = tonumber(ARGV[6])
local shared = {}
for j = 1, ng do shared[j] = ARGV[6 + j] end
local p = 7 + ng
local indexed = 0
-- per status rank (1-based) and per day (1..nd): the ZADD arguments
local statusAdds, dayAdds = {}, {}
local function push(lists, k, score, member)
  local list = lists[k]
  if not list then list = {}; lists[k] = list end
  list[#list + 1] = score
  list[#list + 1] = member
end
-- the indexed emails' ids, days and ms, for the shared terms
local ids, days, mss = {}, {}, {}
local top
for i = 1, n do
  local id, nt = ARGV[p], tonumber(ARGV[p + 1])
  local h = redis.call('HMGET', KEYS[ns + i], 'created_ms', 'status_rank')
  if h[1] then
    local rank = tonumber(h[2] or '-1')
    if rank >= 0 and rank < ns then push(statusAdds, rank + 1, h[1], id) end
    local d = dayOf(h[1]) - day0 + 1
    -- a day past the retention already has no set to post to
    if d >= 1 and d <= nd and (day0 + d) * DAY_MS + ttlBase > 0 then
      local ms = ms13(h[1])
      local tail = SEP .. ms .. SEP .. id
      for j = 1, nt do push(dayAdds, d, 0, ARGV[p + 1 + j] .. tail) end
      ids[#ids + 1] = id
      days[#ids] = d
      mss[#ids] = ms
      if not top or ms > top then top = ms end
    end
    indexed = indexed + 1
  end
  p = p + 2 + nt
end
if ng > 0 and #ids > 0 then
  local group, groupDay = {}, nil
  for i = 1, #ids do
    if mss[i] == top then
      group[#group + 1] = ids[i]
      groupDay = days[i]
    else
      for j = 1, ng do push(dayAdds, days[i], 0, shared[j] .. SEP .. mss[i] .. SEP .. ids[i]) end
    end
  end
  local x = #group == 1 and group[1] or GROUP_MARK .. table.concat(group, ',')
  for j = 1, ng do push(dayAdds, groupDay, 0, shared[j] .. SEP .. top .. SEP .. x) end
end
-- unpack in slices: Lua's C stack holds a few thousand values
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
    zadd(KEYS[ns + n + d], dayAdds[d])
    redis.call('PEXPIRE', KEYS[ns + n + d], (day0 + d) * DAY_MS + ttlBase)
  end
end
return indexed
