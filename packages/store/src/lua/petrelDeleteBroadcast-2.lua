-- KEYS[1] broadcast, KEYS[2] listing. ARGV: id. Removes a draft or scheduled broadcast; one
-- whose fan-out started (queued), finished (sent) or was canceled stays as it is.
local ALLOWED = $[broadcast.deletable]
--- @include "status-guard"
local was = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return {'ok', unpack(was)}
