-- The records of several emails of one team in one call (the worker's reads of the emails that
-- start in one turn of its event loop): KEYS the records; one HGETALL reply per key, in order
-- (empty for a record that is gone).
local replies = {}
for i = 1, #KEYS do replies[i] = redis.call('HGETALL', KEYS[i]) end
return replies
