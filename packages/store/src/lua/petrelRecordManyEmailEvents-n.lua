-- petrelRecordEmailEvents for several emails of one team in one call (the worker's outcomes of
-- the emails that finish in one turn of its event loop: one command instead of one per email).
-- KEYS: every key the emails' calls name, each once (all in the team's slot). ARGV[1]: how many
-- emails; then per email: its key count k, k indexes into KEYS (its KEYS of
-- petrelRecordEmailEvents, in that order), its argument count a and its a arguments (its ARGV
-- of petrelRecordEmailEvents). Returns one reply per email, in order: petrelRecordEmailEvents's
-- number, or a string `ERR <message>` when that email's part raised an error. Each email runs
-- under pcall, so one email's error leaves the others' writes and replies as they would be
-- alone; the failed email keeps what it wrote before its error, as a failed call of
-- petrelRecordEmailEvents would (a script's writes are not rolled back:
-- https://redis.io/docs/latest/develop/interact/programmability/eval-intro/).
--- @include "record-email-events"
local replies = {}
local p = 2
for e = 1, tonumber(ARGV[1]) do
  local keys = {}
  local k = tonumber(ARGV[p])
  for j = 1, k do keys[j] = KEYS[tonumber(ARGV[p + j])] end
  p = p + k + 1
  local argv = {}
  local a = tonumber(ARGV[p])
  for j = 1, a do argv[j] = ARGV[p + j] end
  p = p + a + 1
  local ok, reply = pcall(record_email_events, keys, argv)
  if ok then
    replies[e] = reply
  else
    -- a redis.call error arrives as a table with its message in `err`, any other as a string
    replies[e] = 'ERR ' .. tostring(type(reply) == 'table' and reply.err or reply)
  end
end
return replies
