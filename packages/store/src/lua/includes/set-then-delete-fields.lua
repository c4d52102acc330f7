-- A patch of the record KEYS[1]: ARGV[FIELDS_AT] is a count n, then come n field/value args to
-- set, then the fields to delete (a patch's nulls).
local nset = tonumber(ARGV[FIELDS_AT])
if nset > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, FIELDS_AT + 1, FIELDS_AT + nset)) end
if #ARGV > FIELDS_AT + nset then redis.call('HDEL', KEYS[1], unpack(ARGV, FIELDS_AT + 1 + nset, #ARGV)) end
