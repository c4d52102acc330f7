-- KEYS[1] a record (inbox), [2] events stream. ARGV: streamMaxLen, stream field, event JSON
-- ('' for none), field/value pairs, then '--' and fields to delete. Writes only an existing
-- record; returns 1, or 0 when it does not exist.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local set, del, i = {}, {}, 4
while i <= #ARGV and ARGV[i] ~= '--' do set[#set + 1] = ARGV[i]; i = i + 1 end
for j = i + 1, #ARGV do del[#del + 1] = ARGV[j] end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
if #del > 0 then redis.call('HDEL', KEYS[1], unpack(del)) end
if ARGV[3] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3]) end
return 1
