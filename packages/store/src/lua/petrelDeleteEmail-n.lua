-- Delete a sent email (DELETE /emails/:id; core emails/delete-email.ts). KEYS[1] its record
-- (content and attachments are fields of it), KEYS[2] its timeline, KEYS[3] the team's listing,
-- KEYS[4] and KEYS[5] the team's unfinished indexes of the send and broadcast lanes, KEYS[6] the
-- recipient index of the broadcast ARGV[1] ('' for none), then the team's status indexes and the
-- email's term indexes (email-search.ts), from KEYS[7] on. Only while the record's status
-- is deletable: the record and timeline go, the email leaves every index (and a broadcast's
-- recipient groups, when it is that broadcast's) — a term index that holds it in a group
-- member gets that member without it; the metrics' counters stay (history).
-- Returns 1 if deleted, 0 if the status is not deletable, -1 if the record is gone.
local DELETABLE = $[email.deletable]
local GROUPS = $[metrics.recipientGroups]
--- @include "email-search-group"
local h = redis.call('HMGET', KEYS[1], 'id', 'status', 'broadcast_id', 'created_ms')
local id = h[1]
if not id then return -1 end
if not DELETABLE[h[2]] then return 0 end
redis.call('UNLINK', KEYS[1], KEYS[2])
for k = 3, 5 do redis.call('ZREM', KEYS[k], id) end
for k = 7, #KEYS do
  if redis.call('ZREM', KEYS[k], id) == 0 and h[4] then ungroup(KEYS[k], h[4], id) end
end
if h[3] and h[3] ~= '' and h[3] == ARGV[1] then
  for g in pairs(GROUPS) do redis.call('ZREM', KEYS[6], g .. ':' .. id) end
end
return 1
