-- Acceptance, step 1 of 3 (docs/architecture.md, "Acceptance"): the records of a request and
-- their outbox entries, in the team's slot.
-- KEYS[1] the team's email index (zset), KEYS[2] the team's outbox (zset); KEYS[3..2+N] email
-- records. ARGV: count, createdMs, retentionMs, sharedCount, sharedCount name/value pairs (the
-- fields every record of the request has with the same value: the shared ones start the
-- record's `seq` counter at 1), ownCount, ownCount field names (the fields each email has with
-- its own value), then per email: id, when its job is due (ms; 0 = at once), the values of the
-- own fields in their order, extraCount, and extraCount name/value pairs (the optional fields).
-- The `lane` field is one of the shared or own fields. One of the fields is `first_event`, the
-- email's first timeline event (`data.sequence` 1): it lives in the record, so acceptance writes
-- one key per email; its timeline list (later events) is created by the first script that
-- appends one, with the record's expiry (emails.store.ts, timelineOf).
-- Fields arrive flat (no JSON to decode here), each name once per request: a value all the
-- request's emails share (their status, lane, sending domain…) is sent once, not 100 times, and
-- each record is written by one HSET.
-- An email whose record exists already (an idempotent retry) is left untouched: one EXISTS of
-- all the records tells a new request (none exists) from a retry, which checks them one by one.
-- Every email of the request gets its outbox entry (scored createdMs), so until step 3 removes
-- it the relay can finish what a crash interrupted. Returns the number of records created.
-- Optional ARGV after the emails: outboxCount and that many outbox members, written instead of
-- the emails' own members `<lane>:<due>:<id>` (a request's emails due at once share one group
-- job, hence one entry).
-- Optional KEYS[3+N], KEYS[4+N]: the team's unfinished indexes of the `send` and `broadcast`
-- lanes; each created email enters its lane's, scored by when its job is due (or createdMs),
-- for the stuck-email watchdog.
local n = tonumber(ARGV[1])
local ns = tonumber(ARGV[4])
-- one field list reused by every record: `id`, the shared pairs, the own names with their
-- values put in place per email, then the email's optional pairs
local fields = { 'id', '' }
local lane_at
for j = 5, 4 + ns * 2, 2 do
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ARGV[j + 1]
  if ARGV[j] == 'lane' then lane_at = #fields end
end
local p = 5 + ns * 2
local nown = tonumber(ARGV[p])
local own_at = #fields
for j = p + 1, p + nown do
  fields[#fields + 1] = ARGV[j]
  fields[#fields + 1] = ''
  if ARGV[j] == 'lane' then lane_at = #fields end
end
local own_end = #fields
p = p + nown + 1
-- where each email's arguments start (the explicit outbox follows the last one)
local at = {}
for i = 1, n do
  at[i] = p
  p = p + 2 + nown + 1 + tonumber(ARGV[p + 2 + nown]) * 2
end
local explicit = ARGV[p] ~= nil
-- unpack in slices: Lua's C stack holds a few thousand values
local existing = 0
for from = 3, 2 + n, 1000 do
  existing = existing + redis.call('EXISTS', unpack(KEYS, from, math.min(from + 999, 2 + n)))
end
local fresh = existing == 0
local index = {}
local members = {}
local unfinished = KEYS[3 + n]
local pending_s, pending_b = {}, {}
for i = 1, n do
  local rec = KEYS[2 + i]
  local q = at[i]
  local id, due = ARGV[q], ARGV[q + 1]
  for j = 0, nown - 1 do fields[own_at + 2 + 2 * j] = ARGV[q + 2 + j] end
  local lane = fields[lane_at]
  if not explicit then
    members[#members + 1] = ARGV[2]
    members[#members + 1] = lane .. ':' .. due .. ':' .. id
  end
  if fresh or redis.call('EXISTS', rec) == 0 then
    local x = q + 2 + nown
    local nx = tonumber(ARGV[x]) * 2
    fields[2] = id
    for j = 1, nx do fields[own_end + j] = ARGV[x + j] end
    redis.call('HSET', rec, unpack(fields, 1, own_end + nx))
    redis.call('PEXPIRE', rec, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
    if unfinished then
      local list = lane == 'broadcast' and pending_b or pending_s
      list[#list + 1] = due == '0' and ARGV[2] or due
      list[#list + 1] = id
    end
  end
end
if #pending_s > 0 then redis.call('ZADD', unfinished, unpack(pending_s)) end
if #pending_b > 0 then redis.call('ZADD', KEYS[4 + n], unpack(pending_b)) end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
if explicit then
  members = {}
  for j = p + 1, p + tonumber(ARGV[p]) do
    members[#members + 1] = ARGV[2]
    members[#members + 1] = ARGV[j]
  end
end
if #members > 0 then redis.call('ZADD', KEYS[2], unpack(members)) end
return #index / 2
