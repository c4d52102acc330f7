-- A broadcast's emails, one chunk of a fan-out page (BroadcastEmailsWriter): records in the
-- EmailsStore layout without html/text (the content is the broadcast's, read at send time),
-- their `email.queued` timelines and listing entries. No outbox entries: the fan-out's
-- checkpoint comes after the jobs, so a crash in between redoes the page.
-- KEYS[1] the team's email index (zset); KEYS[2..1+N] email records, then the same count of
-- timeline keys. ARGV: count, createdMs, retentionMs, contentHead, contentTail, sharedCount,
-- sharedCount name/value pairs, then per email: id, contactId, messageId, ownJson (its `to`
-- and subject), eventJSON (the first event: its `data.sequence` is 1, and the record's `seq`
-- counter starts there), contactValuesJson ('' for none: no field).
-- A record's `content` is contentHead .. ownJson .. contentTail. An existing record is left
-- alone (a redone page). Returns the number of records created. Optional KEYS[2+2N]: the team's
-- unfinished index of the broadcast lane, which each created email enters (scored createdMs).
local n = tonumber(ARGV[1])
local unfinished = KEYS[2 + 2 * n]
local ns = tonumber(ARGV[6])
local shared_from, shared_to = 7, 6 + ns * 2
local p = shared_to + 1
local index = {}
for i = 1, n do
  local rec = KEYS[1 + i]
  local tl = KEYS[1 + n + i]
  local id = ARGV[p]
  if redis.call('EXISTS', rec) == 0 then
    redis.call('HSET', rec, 'id', id, 'contact_id', ARGV[p + 1], 'message_id', ARGV[p + 2],
      'content', ARGV[4] .. ARGV[p + 3] .. ARGV[5], 'seq', 1, unpack(ARGV, shared_from, shared_to))
    if ARGV[p + 5] ~= '' then redis.call('HSET', rec, 'contact_values', ARGV[p + 5]) end
    redis.call('PEXPIRE', rec, ARGV[3])
    redis.call('RPUSH', tl, ARGV[p + 4])
    redis.call('PEXPIRE', tl, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
  end
  p = p + 6
end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
if unfinished and #index > 0 then redis.call('ZADD', unfinished, unpack(index)) end
return #index / 2
