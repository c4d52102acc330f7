-- KEYS[1] contact, [2] contact listing, [3] mailbox → id, [4] unsubscribed mailboxes,
-- [5] the contact's segments, [6] events stream, then M segment member listings (the
-- contact's segments), then every topic subscription hash of the team.
-- ARGV: id, mailbox, expected rev, streamMaxLen, stream field, contact.deleted event JSON, M.
-- Returns 1, 0 to retry, -1 when the contact is gone.
local REV_FIELD, REV_READ = 'rev', ARGV[3]
--- @include "compare-revision"
local nm = tonumber(ARGV[7])
for i = 7, 6 + nm do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = 7 + nm, #KEYS do redis.call('HDEL', KEYS[i], ARGV[2]) end
redis.call('DEL', KEYS[1], KEYS[5])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('SREM', KEYS[4], ARGV[2])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
