-- The body of petrelRecordEmailEvents (its KEYS and ARGV are described there) as a function of
-- one email's KEYS and ARGV, so petrelRecordManyEmailEvents runs the same code for each of
-- several emails in one script call. Its `return`s are the email's reply.
local COUNTED_STATUSES = $[email.counted]
local function record_email_events(KEYS, ARGV)
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
end
