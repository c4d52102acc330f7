-- Index new emails. KEYS[1..S] the team's status indexes, in EMAIL_STATUSES order (S = ARGV[1]);
-- then the N emails' record keys (N = ARGV[3]); then every term index key of the call, each
-- once. ARGV: S, retentionMs, N, G, then the positions among the term keys (1 = the first term
-- key) of the G terms every email of the call has (its shared terms), then per email: id, the
-- count of its other terms, and their positions.
-- An email is indexed only while its record exists, scored by its `created_ms`, under each of
-- its terms and under its CURRENT status (read here, so an email whose status moved before
-- this ran lands in the right index). The shared terms are posted once for the call's group:
-- the emails with the call's newest score (the records this write created; a retried write's
-- older records stay apart), as one group member (email-search-group.lua) under each shared
-- term; an email outside the group is posted under them on its own, as is a group of one.
-- Each index gets one ZADD for all the call's entries under it. Each term index written is
-- trimmed of members older than the retention before the call's newest entry under it and
-- expires a retention after it: an index no one writes any more vanishes with the records it
-- lists. Returns how many emails were indexed.
--- @include "email-search-group"
local ns = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local ng = tonumber(ARGV[4])
local t0 = ns + n
local shared = {}
for j = 1, ng do shared[j] = t0 + tonumber(ARGV[4 + j]) end
local p = 5 + ng
local indexed = 0
-- per key position: the score/member pairs to add and the newest score among them
local adds = {}
local newest = {}
local order = {}
local function add(k, score, member)
  local list = adds[k]
  if not list then list = {}; adds[k] = list; newest[k] = score; order[#order + 1] = k
  elseif score > newest[k] then newest[k] = score end
  list[#list + 1] = score
  list[#list + 1] = member
end
-- the indexed emails' ids and scores, for the shared terms
local ids, scores = {}, {}
local top
for i = 1, n do
  local id, nt = ARGV[p], tonumber(ARGV[p + 1])
  local h = redis.call('HMGET', KEYS[ns + i], 'created_ms', 'status_rank')
  if h[1] then
    local score = tonumber(h[1])
    for j = 1, nt do add(t0 + tonumber(ARGV[p + 1 + j]), score, id) end
    local rank = tonumber(h[2] or '-1')
    if rank >= 0 and rank < ns then add(rank + 1, score, id) end
    indexed = indexed + 1
    ids[indexed] = id
    scores[indexed] = score
    if not top or score > top then top = score end
  end
  p = p + 2 + nt
end
if ng > 0 and indexed > 0 then
  local group = {}
  for i = 1, indexed do
    if scores[i] == top then
      group[#group + 1] = ids[i]
    else
      for j = 1, ng do add(shared[j], scores[i], ids[i]) end
    end
  end
  local member = #group == 1 and group[1] or GROUP_MARK .. table.concat(group, ',')
  for j = 1, ng do add(shared[j], top, member) end
end
-- in first-written order: replicas and the AOF see the same commands on every run
for _, k in ipairs(order) do
  local list = adds[k]
  -- unpack in slices: Lua's C stack holds a few thousand values
  for from = 1, #list, 1000 do
    redis.call('ZADD', KEYS[k], unpack(list, from, math.min(from + 999, #list)))
  end
  -- term indexes trim and expire themselves (status indexes: housekeeping, with the listing)
  if k > ns then
    redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', '(' .. (newest[k] - retention))
    redis.call('PEXPIRE', KEYS[k], retention)
  end
end
return indexed
