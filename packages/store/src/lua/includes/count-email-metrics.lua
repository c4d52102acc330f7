-- The metrics' counters of an event being recorded (email-metrics.store.ts), included by
-- petrelRecordEmailEvents: `count_metrics(names, link)` per event, `expire_metrics()` once after.
-- Each metric adds 1 to the team's `t:<metric>` (KEYS[6]), the sending domain's
-- `<domain>:<metric>` (KEYS[19]; the record's `from_domain`) and the broadcast's
-- `<broadcastId>:<metric>` (KEYS[20]); the email's first open and first click (the record's
-- `opens` / `clicks`) also count `unique_opened` / `unique_clicked`. A broadcast's email whose
-- broadcast is the one the tail names (ARGV[#ARGV - 2]) enters the recipient groups of KEYS[21]
-- (`<group>:<emailId>`, score 0) and its clicked links go to KEYS[22] (score 0) and KEYS[23]
-- (`c:<url>` every click, `u:<url>` the email's first click of it). Its sent, hard-bounced and
-- complained emails also count on the broadcast's record KEYS[24] (`p_<metric>`, the protection
-- rule's counters), while that record exists.
-- `first_time(status)`: false for an event of a once-per-email status (`unsubscribed`) that the
-- email already has (the record's `once:<status>`), which the script then neither records nor
-- counts, so a second click on an unsubscribe link counts nothing.
local GROUPS = $[metrics.recipientGroups]
local ONCE = $[metrics.oncePerEmail]
local function first_time(status)
  if not ONCE[status] then return true end
  return redis.call('HSETNX', KEYS[1], 'once:' .. status, 1) == 1
end
local PROTECTION = $[metrics.protectionFields]
local m_protected = nil
local m_fetched, m_id, m_dom, m_bid, m_indexed = false, nil, nil, nil, false
local m_counted, m_touched = false, false
local function count_one(m)
  redis.call('HINCRBY', KEYS[6], $[metrics.teamField] .. m, 1)
  if m_dom then redis.call('HINCRBY', KEYS[19], m_dom .. ':' .. m, 1) end
  if m_bid then redis.call('HINCRBY', KEYS[20], m_bid .. ':' .. m, 1) end
  if m_indexed and PROTECTION[m] then
    if m_protected == nil then m_protected = redis.call('HEXISTS', KEYS[24], 'id') == 1 end
    if m_protected then redis.call('HINCRBY', KEYS[24], PROTECTION[m], 1) end
  end
  if m_indexed and GROUPS[m] then
    redis.call('ZADD', KEYS[21], 0, m .. ':' .. m_id)
    m_touched = true
  end
  m_counted = true
end
local function count_metrics(names, link)
  if not m_fetched then
    local f = redis.call('HMGET', KEYS[1], 'id', 'from_domain', 'broadcast_id')
    m_id, m_dom, m_bid = f[1], f[2], f[3]
    if m_dom == '' then m_dom = nil end
    m_indexed = m_bid and m_bid == ARGV[#ARGV - 2]
    m_fetched = true
  end
  for m in string.gmatch(names, '[^,]+') do
    count_one(m)
    if m == 'opened' then
      if redis.call('HINCRBY', KEYS[1], 'opens', 1) == 1 then count_one('unique_opened') end
    elseif m == 'clicked' then
      if redis.call('HINCRBY', KEYS[1], 'clicks', 1) == 1 then count_one('unique_clicked') end
      if link ~= '' then
        local c = redis.call('HINCRBY', KEYS[1], 'link:' .. link, 1)
        if m_indexed then
          redis.call('ZADD', KEYS[22], 0, link)
          redis.call('HINCRBY', KEYS[23], 'c:' .. link, 1)
          if c == 1 then redis.call('HINCRBY', KEYS[23], 'u:' .. link, 1) end
          m_touched = true
        end
      end
    elseif string.sub(m, 1, 8) == 'bounced_' then
      redis.call('HSET', KEYS[1], 'bounce_type', string.sub(m, 9))
    end
  end
end
local function expire_metrics()
  if m_counted then
    for k = 19, 20 do redis.call('PEXPIREAT', KEYS[k], ARGV[#ARGV]) end
    redis.call('PEXPIREAT', KEYS[6], ARGV[#ARGV])
  end
  if m_touched then
    for k = 21, 23 do redis.call('PEXPIRE', KEYS[k], ARGV[#ARGV - 1]) end
  end
end
