-- KEYS[1] email record, KEYS[2] its timeline, KEYS[3] the team's events stream, KEYS[4] and
-- KEYS[5] the team's unfinished indexes of the send and broadcast lanes (an email at `sent` or
-- beyond leaves them). ARGV: streamMaxLen, fieldCount, then fieldCount name/value pairs to set on the record, then per
-- event (in order): status, rank, eventJSON head (the JSON up to its `data.sequence` value),
-- its metrics (comma-separated counter names, '' for none) and its clicked link ('' for none),
-- then the metrics' tail: broadcast id, broadcast indexes' TTL (ms), the hour hashes' expiry.
-- Appends and publishes every event, sets the fields, and moves `status` to the highest-ranked
-- event's status if that is forward (rank comparison), so events that arrive out of order never
-- move an email backwards. Returns 1 if the status moved, 0 if not, -1 if the record is gone,
-- 2 if every event was of a once-per-email status the email already had (count-email-metrics).
-- Dashboard (email-search.ts, email-stats.ts): KEYS[6] the team's counters of this hour, each
-- event of a counted status adding 1 to `<lane>:<status>` (the hash expires at the last ARGV,
-- a ms time); KEYS[7..18] the team's status indexes in EMAIL_STATUSES order (KEYS[7 + rank]):
-- a status move moves the email from its old status's index to its new one, in this script.
-- Each event head ends in `"sequence":` (email-event-json.ts): the script completes it with the
-- email's next sequence number and `}}`, from the record's `seq` counter (a record written
-- before the counter existed starts after its timeline's length).
-- The timeline list holds the events after the first (which is the record's `first_event`
-- field; a record of an older release has it as the list's first entry instead): the first
-- event appended creates the list, which then takes the record's expiry.
-- Metrics (email-metrics.store.ts, the include count-email-metrics): KEYS[6] also holds the
-- team's `t:<metric>` counters of the hour, KEYS[19] and KEYS[20] the hour's per-domain and
-- per-broadcast counters, KEYS[21..23] the broadcast's recipient index, clicked links and their
-- clicks (written only when the record's broadcast is the one the tail names), KEYS[24] the
-- broadcast's record, whose protection counters (`p_sent`, `p_hard_bounced`, `p_complained`)
-- the same events add to (core broadcasts/protection.ts reads them: rates at write time).
-- KEYS[25..] (the key count is the first argument): the soft-bounce streaks the outcome ends
-- (core deliver/soft-bounces.ts: a delivery ends its recipients' streaks), deleted here so a
-- delivered email makes no round trip of its own for them.
local COUNTED_STATUSES = $[email.counted]
if #KEYS > 24 then redis.call('DEL', unpack(KEYS, 25)) end
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local nf = tonumber(ARGV[2])
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + nf * 2)) end
local best = tonumber(redis.call('HGET', KEYS[1], 'status_rank') or '-1')
local old_rank = best
local lane = nil
local counted = false
local status = nil
local first = 3 + nf * 2
local seq = 0
--- @include "count-email-metrics"
-- an event of a once-per-email status the email already has is dropped (nothing appended,
-- published or counted): 2 when that leaves no event at all
local kept = {}
local n = 0
for i = first, #ARGV - 3, 5 do
  if first_time(ARGV[i]) then kept[i] = true; n = n + 1 end
end
if n == 0 and #ARGV - 3 >= first then return 2 end
if n > 0 then
  seq = redis.call('HINCRBY', KEYS[1], 'seq', n)
  if seq == n then
    local before = redis.call('LLEN', KEYS[2])
    if before > 0 then seq = redis.call('HINCRBY', KEYS[1], 'seq', before) end
  end
  seq = seq - n
end
local created = false
for i = first, #ARGV - 3, 5 do
  if kept[i] then
    seq = seq + 1
    local ev = ARGV[i + 2] .. seq .. '}}'
    if redis.call('RPUSH', KEYS[2], ev) == 1 then created = true end
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'event', ev)
    if COUNTED_STATUSES[ARGV[i]] then
      lane = lane or redis.call('HGET', KEYS[1], 'lane') or 'send'
      redis.call('HINCRBY', KEYS[6], lane .. ':' .. ARGV[i], 1)
      counted = true
    end
    if ARGV[i + 3] ~= '' then count_metrics(ARGV[i + 3], ARGV[i + 4]) end
    local rank = tonumber(ARGV[i + 1])
    if rank > best then best = rank; status = ARGV[i] end
  end
end
if created then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
if best >= $[email.finishedRank] then
  redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'id'))
  redis.call('ZREM', KEYS[5], redis.call('HGET', KEYS[1], 'id'))
end
if counted then redis.call('PEXPIREAT', KEYS[6], ARGV[#ARGV]) end
expire_metrics()
if status then
  redis.call('HSET', KEYS[1], 'status', status, 'status_rank', best)
  local id = redis.call('HGET', KEYS[1], 'id')
  if old_rank >= 0 then redis.call('ZREM', KEYS[7 + old_rank], id) end
  redis.call('ZADD', KEYS[7 + best], redis.call('HGET', KEYS[1], 'created_ms') or 0, id)
  return 1
end
return 0
