-- A batch of an import. KEYS[1] contact listing, [2] mailbox → id, [3] unsubscribed
-- mailboxes, then S segment records, S segment member listings, T topic records, T topic
-- subscription hashes, then per row its contact record and its segment set.
-- ARGV: S, T, S segment ids, T subscriptions, then per row: mailbox, id, '1' if the contact
-- exists ('0' = create), unsubscribed ('1'|'0'|''), createdMs, N, D, N field/value args, D
-- fields to delete.
-- Every row is first checked against the mailbox index (the caller read it): if any row's
-- contact changed meanwhile nothing is written and -1 asks for a retry. Segments and topics
-- deleted since the import started are skipped. Returns the number of rows written.
local ns, nt = tonumber(ARGV[1]), tonumber(ARGV[2])
local segs, tops = {}, {}
for i = 1, ns do
  if redis.call('EXISTS', KEYS[3 + i]) == 1 then segs[#segs + 1] = i end
end
for i = 1, nt do
  if redis.call('EXISTS', KEYS[3 + 2 * ns + i]) == 1 then tops[#tops + 1] = i end
end
local first = 3 + ns + nt
local rows = {}
local p = first
local k = 4 + 2 * ns + 2 * nt
while p <= #ARGV do
  local nf, nd = tonumber(ARGV[p + 5]), tonumber(ARGV[p + 6])
  rows[#rows + 1] = {p = p, k = k, nf = nf, nd = nd}
  local owner = redis.call('HGET', KEYS[2], ARGV[p])
  if ARGV[p + 2] == '1' then
    if owner ~= ARGV[p + 1] then return -1 end
  elseif owner then
    return -1
  end
  p = p + 7 + nf + nd
  k = k + 2
end
for _, r in ipairs(rows) do
  local q = r.p
  local mailbox, id = ARGV[q], ARGV[q + 1]
  local rec, rsegs = KEYS[r.k], KEYS[r.k + 1]
  if r.nf > 0 then redis.call('HSET', rec, unpack(ARGV, q + 7, q + 6 + r.nf)) end
  if r.nd > 0 then redis.call('HDEL', rec, unpack(ARGV, q + 7 + r.nf, q + 6 + r.nf + r.nd)) end
  if ARGV[q + 2] == '1' then
    redis.call('HINCRBY', rec, 'rev', 1)
  else
    redis.call('ZADD', KEYS[1], ARGV[q + 4], id)
    redis.call('HSET', KEYS[2], mailbox, id)
  end
  if ARGV[q + 3] == '1' then redis.call('SADD', KEYS[3], mailbox) elseif ARGV[q + 3] == '0' then redis.call('SREM', KEYS[3], mailbox) end
  local ms = redis.call('HGET', rec, 'created_ms')
  for _, i in ipairs(segs) do
    redis.call('SADD', rsegs, ARGV[2 + i])
    redis.call('ZADD', KEYS[3 + ns + i], ms, id)
  end
  for _, i in ipairs(tops) do
    redis.call('HSET', KEYS[3 + 2 * ns + nt + i], mailbox, ARGV[2 + ns + i])
  end
end
return #rows
