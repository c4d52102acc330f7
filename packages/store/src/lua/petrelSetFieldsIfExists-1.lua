-- KEYS[1] a record (hash). ARGV: name/value pairs. Sets them only while the record exists, so a
-- write racing a delete or an expiry never leaves a stray partial record. Returns 1, or 0 when
-- the record is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
