-- The metrics' counters of recorded email events (email-metrics.store.ts), queued in one MULTI
-- right behind petrelRecordEmailEvents (same slot, the team's).
-- KEYS[1] the email record, KEYS[2] the team's counters of this hour (the hash of email-stats.ts),
-- KEYS[3] the broadcast's recipient index (zset, every score 0: `<group>:<emailId>` in id order),
-- KEYS[4] its clicked links (zset, score 0: URLs in order), KEYS[5] their clicks (hash
-- `c:<url>` every click, `u:<url>` the first click of each email).
-- ARGV[1] the hour hash's expiry (ms time), ARGV[2] the broadcast id KEYS[3..5] belong to ('' for
-- none: a broadcast's email whose events do not name it leaves them alone), ARGV[3] their TTL
-- (ms), then per event: its counters (comma-separated metric names), the clicked link ('').
-- Each counter adds 1 to the team's `t:<metric>`, its sending domain's `d:<domain>:<metric>`
-- and its broadcast's `b:<broadcastId>:<metric>`; the email's first open and first click also
-- count `unique_opened` / `unique_clicked` (the record's `opens` / `clicks`). Returns 0 when the
-- record is gone (nothing counted), else 1.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local f = redis.call('HMGET', KEYS[1], 'id', 'from_domain', 'broadcast_id')
local id, dom, bid = f[1], f[2], f[3]
local indexed = bid and bid == ARGV[2]
local GROUPS = $[metrics.recipientGroups]
local counted, touched = false, false
local function count(m)
  redis.call('HINCRBY', KEYS[2], $[metrics.teamField] .. m, 1)
  if dom then redis.call('HINCRBY', KEYS[2], $[metrics.domainField] .. dom .. ':' .. m, 1) end
  if bid then redis.call('HINCRBY', KEYS[2], $[metrics.broadcastField] .. bid .. ':' .. m, 1) end
  if indexed and GROUPS[m] then
    redis.call('ZADD', KEYS[3], 0, m .. ':' .. id)
    touched = true
  end
  counted = true
end
for i = 4, #ARGV - 1, 2 do
  for m in string.gmatch(ARGV[i], '[^,]+') do
    count(m)
    if m == 'opened' then
      if redis.call('HINCRBY', KEYS[1], 'opens', 1) == 1 then count('unique_opened') end
    elseif m == 'clicked' then
      if redis.call('HINCRBY', KEYS[1], 'clicks', 1) == 1 then count('unique_clicked') end
      local link = ARGV[i + 1]
      if link ~= '' then
        local n = redis.call('HINCRBY', KEYS[1], 'link:' .. link, 1)
        if indexed then
          redis.call('ZADD', KEYS[4], 0, link)
          redis.call('HINCRBY', KEYS[5], 'c:' .. link, 1)
          if n == 1 then redis.call('HINCRBY', KEYS[5], 'u:' .. link, 1) end
          touched = true
        end
      end
    elseif string.sub(m, 1, 8) == 'bounced_' then
      redis.call('HSET', KEYS[1], 'bounce_type', string.sub(m, 9))
    end
  end
end
if counted then redis.call('PEXPIREAT', KEYS[2], ARGV[1]) end
if touched then
  for k = 3, 5 do redis.call('PEXPIRE', KEYS[k], ARGV[3]) end
end
return 1
