-- KEYS[1] contact, [2] unsubscribed mailboxes, [3] events stream.
-- ARGV: expected rev, mailbox, unsubscribed ('1'|'0'|'' = unchanged), streamMaxLen, stream
-- field, contact.updated event JSON ('' = none), N, N field/value args to set, then the fields
-- to delete. Returns 1, 0 to retry (rev moved), -1 when the contact is gone.
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
local ns = tonumber(ARGV[7])
if ns > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + ns)) end
if #ARGV > 7 + ns then redis.call('HDEL', KEYS[1], unpack(ARGV, 8 + ns, #ARGV)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[3] == '1' then redis.call('SADD', KEYS[2], ARGV[2]) elseif ARGV[3] == '0' then redis.call('SREM', KEYS[2], ARGV[2]) end
if ARGV[6] ~= '' then redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6]) end
return 1
