-- KEYS[1] suppression index, [2] contact index, [3] unsubscribed mailboxes, and for a topic
-- email [4] the topic record, [5] its subscriptions. ARGV: the recipients' mailboxes.
-- Read-only: per mailbox, in order, `suppressed` (0/1), the contact id or false, `unsubscribed`
-- (0/1), the topic choice or false; then the topic's default (false without a topic or when it
-- is gone). One command instead of a pipeline of five: the send path pays it on every email.
local out = {}
local topic = #KEYS == 5
for i = 1, #ARGV do
  local m = ARGV[i]
  out[#out + 1] = redis.call('HEXISTS', KEYS[1], m)
  out[#out + 1] = redis.call('HGET', KEYS[2], m)
  out[#out + 1] = redis.call('SISMEMBER', KEYS[3], m)
  out[#out + 1] = topic and redis.call('HGET', KEYS[5], m) or false
end
out[#out + 1] = topic and redis.call('HGET', KEYS[4], 'default_subscription') or false
return out
