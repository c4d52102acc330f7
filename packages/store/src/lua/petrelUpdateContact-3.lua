-- KEYS[1] contact, [2] unsubscribed mailboxes, [3] events stream.
-- ARGV: expected rev, mailbox, unsubscribed ('1'|'0'|'' = unchanged), streamMaxLen, stream
-- field, contact.updated event JSON ('' = none), N, N field/value args to set, then the fields
-- to delete. Returns 1, 0 to retry (rev moved), -1 when the contact is gone.
local REV_FIELD, REV_READ = 'rev', ARGV[1]
--- @include "compare-revision"
local FIELDS_AT = 7
--- @include "set-then-delete-fields"
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[3] == '1' then redis.call('SADD', KEYS[2], ARGV[2]) elseif ARGV[3] == '0' then redis.call('SREM', KEYS[2], ARGV[2]) end
if ARGV[6] ~= '' then redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6]) end
return 1
