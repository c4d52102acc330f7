-- Delete a sent email (DELETE /emails/:id; core emails/delete-email.ts). KEYS[1] its record
-- (content and attachments are fields of it), KEYS[2] its timeline, KEYS[3] the team's listing,
-- KEYS[4] and KEYS[5] the team's unfinished indexes of the send and broadcast lanes, KEYS[6] the
-- recipient index of the broadcast ARGV[1] ('' for none), then the team's ARGV[2] status indexes
-- (email-search.ts), from KEYS[7] on, then the day set of the email's creation
-- (email-search-postings.lua); ARGV[3..] the email's terms. Only while the record's status is
-- deletable: the record and timeline go, the email leaves every index (and a broadcast's
-- recipient groups, when it is that broadcast's) — a group posting that holds it is replaced by
-- one without it; the metrics' counters stay (history).
-- Returns 1 if deleted, 0 if the status is not deletable, -1 if the record is gone.
local DELETABLE = $[email.deletable]
local GROUPS = $[metrics.recipientGroups]
--- @include "email-search-postings"
local h = redis.call('HMGET', KEYS[1], 'id', 'status', 'broadcast_id', 'created_ms')
local id = h[1]
if not id then return -1 end
if not DELETABLE[h[2]] then return 0 end
redis.call('UNLINK', KEYS[1], KEYS[2])
for k = 3, 5 do redis.call('ZREM', KEYS[k], id) end
local ns = tonumber(ARGV[2])
for k = 7, 6 + ns do redis.call('ZREM', KEYS[k], id) end
if h[4] then
  local day, ms = KEYS[7 + ns], ms13(h[4])
  for i = 3, #ARGV do
    local at = ARGV[i] .. SEP .. ms .. SEP
    if redis.call('ZREM', day, at .. id) == 0 then
      for _, m in ipairs(redis.call('ZRANGE', day, '[' .. at .. GROUP_MARK, '(' .. ARGV[i] .. SEP .. ms .. '\1', 'BYLEX')) do
        local ids, kept = groupIds(string.sub(m, #at + 1)), {}
        for _, x in ipairs(ids) do
          if x ~= id then kept[#kept + 1] = x end
        end
        if #kept < #ids then
          redis.call('ZREM', day, m)
          if #kept > 0 then redis.call('ZADD', day, 0, at .. GROUP_MARK .. table.concat(kept, ',')) end
        end
      end
    end
  end
end
if h[3] and h[3] ~= '' and h[3] == ARGV[1] then
  for g in pairs(GROUPS) do redis.call('ZREM', KEYS[6], g .. ':' .. id) end
end
return 1
