-- Acceptance, step 1 of 3 (docs/architecture.md, "Acceptance"): the records of a request and
-- their outbox entries, in the team's slot.
-- KEYS[1] the team's email index (zset), KEYS[2] the team's outbox (zset); KEYS[3..2+N] email
-- records. ARGV: count, createdMs, retentionMs, sharedCount, sharedCount name/value pairs (fields
-- every record of the request has), then per email: id, outbox member, the values of the fields
-- every email has, in EMAIL_FIELDS order below, extraCount, and extraCount name/value pairs (the
-- optional fields). One of the fixed fields is `first_event`, the email's first timeline event
-- (`data.sequence` 1; the shared fields start the record's `seq` counter at 1): it lives in the
-- record, so acceptance writes one key per email; its timeline list (later events) is created by
-- the first script that appends one, with the record's expiry (emails.store.ts, timelineOf).
-- Fields arrive flat (no JSON to decode here), the fixed ones by position: their names are not
-- sent 100 times a request, and each record is written by one HSET.
-- An email whose record exists already (an idempotent retry) is left untouched; every email of
-- the request gets its outbox entry (scored createdMs), so until step 3 removes it the relay
-- can finish what a crash interrupted. Returns the number of records created.
-- Optional ARGV after the emails: outboxCount and that many outbox members, written instead of
-- the emails' own members (a request's emails due at once share one group job, hence one entry).
-- Optional KEYS[3+N], KEYS[4+N]: the team's unfinished indexes of the `send` and `broadcast`
-- lanes; each created email enters its lane's, scored by when its job is due (the outbox
-- member's due time, or createdMs), for the stuck-email watchdog.
local EMAIL_FIELDS = { 'status', 'status_rank', 'lane', 'message_id', 'content', 'scheduled_at', 'from_domain', 'first_event' }
local n = tonumber(ARGV[1])
local ns = tonumber(ARGV[4])
-- one field list reused by every record: `id`, the shared pairs, the fixed names with their
-- values put in place per email, then the email's optional pairs
local fields = { 'id', '' }
for j = 5, 4 + ns * 2 do fields[#fields + 1] = ARGV[j] end
local fixed_at = #fields
for _, name in ipairs(EMAIL_FIELDS) do
  fields[#fields + 1] = name
  fields[#fields + 1] = ''
end
local fixed_end = #fields
local nfixed = #EMAIL_FIELDS
local p = 5 + ns * 2
local index = {}
local own = {}
local unfinished = KEYS[3 + n]
local pending_s, pending_b = {}, {}
for i = 1, n do
  local rec = KEYS[2 + i]
  local id, member = ARGV[p], ARGV[p + 1]
  local values = p + 2
  local nx = tonumber(ARGV[values + nfixed])
  local extras = values + nfixed + 1
  p = extras + nx * 2
  own[#own + 1] = ARGV[2]
  own[#own + 1] = member
  if redis.call('EXISTS', rec) == 0 then
    fields[2] = id
    for j = 0, nfixed - 1 do fields[fixed_at + 2 + 2 * j] = ARGV[values + j] end
    for j = 0, nx * 2 - 1 do fields[fixed_end + 1 + j] = ARGV[extras + j] end
    redis.call('HSET', rec, unpack(fields, 1, fixed_end + nx * 2))
    redis.call('PEXPIRE', rec, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
    if unfinished then
      local lane, due = string.match(member, '^([^:]+):(%d+):')
      local list = lane == 'broadcast' and pending_b or pending_s
      list[#list + 1] = due == '0' and ARGV[2] or due
      list[#list + 1] = id
    end
  end
end
if #pending_s > 0 then redis.call('ZADD', unfinished, unpack(pending_s)) end
if #pending_b > 0 then redis.call('ZADD', KEYS[4 + n], unpack(pending_b)) end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
local outbox = own
if ARGV[p] then
  outbox = {}
  for j = p + 1, p + tonumber(ARGV[p]) do
    outbox[#outbox + 1] = ARGV[2]
    outbox[#outbox + 1] = ARGV[j]
  end
end
if #outbox > 0 then redis.call('ZADD', KEYS[2], unpack(outbox)) end
return #index / 2
