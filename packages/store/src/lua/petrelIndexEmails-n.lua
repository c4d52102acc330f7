-- Index new emails. KEYS[1..S] the team's status indexes, in EMAIL_STATUSES order (S = ARGV[1]);
-- then the N emails' record keys (N = ARGV[3]); then every term index key of the call, each
-- once. ARGV: S, retentionMs, N, then per email: id, term count, and the position of each of
-- its terms among the term keys (1 = the first term key).
-- An email is indexed only while its record exists, scored by its `created_ms`, under each of
-- its terms and under its CURRENT status (read here, so an email whose status moved before
-- this ran lands in the right index). Each index gets one ZADD for all the call's emails under
-- it (a batch's emails share tags, subject words and their status: one command, not one per
-- email). Each term index written is trimmed of ids older than the retention before the call's
-- newest email under it and expires a retention after it: an index no one writes any more
-- vanishes with the records it lists. Returns how many emails were indexed.
local ns = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local n = tonumber(ARGV[3])
local t0 = ns + n
local p = 4
local indexed = 0
-- per key position: the score/id pairs to add and the newest score among them
local adds = {}
local newest = {}
local order = {}
local function add(k, score, id)
  local list = adds[k]
  if not list then list = {}; adds[k] = list; newest[k] = score; order[#order + 1] = k
  elseif score > newest[k] then newest[k] = score end
  list[#list + 1] = score
  list[#list + 1] = id
end
for i = 1, n do
  local id, nt = ARGV[p], tonumber(ARGV[p + 1])
  local h = redis.call('HMGET', KEYS[ns + i], 'created_ms', 'status_rank')
  if h[1] then
    local score = tonumber(h[1])
    for j = 1, nt do add(t0 + tonumber(ARGV[p + 1 + j]), score, id) end
    local rank = tonumber(h[2] or '-1')
    if rank >= 0 and rank < ns then add(rank + 1, score, id) end
    indexed = indexed + 1
  end
  p = p + 2 + nt
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
