-- Refuses the change unless the record KEYS[1] exists and its status is one of ALLOWED (a set
-- the including script takes from a status machine: `local ALLOWED = $[broadcast.editable]`).
-- Leaves the status in `st`. Replies {'missing'} or {'status', <current status>}.
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return {'missing'} end
if not ALLOWED[st] then return {'status', st} end
