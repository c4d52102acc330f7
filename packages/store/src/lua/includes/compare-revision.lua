-- The check of an optimistic write to the record KEYS[1]: its field REV_FIELD (a revision that
-- moves on every write) must still be REV_READ, the value its caller read. Returns -1 when the
-- record is gone, 0 when it changed since (the caller reads again and retries); else the write
-- goes on, with the revision in `rev`.
local rev = redis.call('HGET', KEYS[1], REV_FIELD)
if not rev then return -1 end
if rev ~= REV_READ then return 0 end
