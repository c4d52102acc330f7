-- KEYS[1] domain, [2] events stream. ARGV: expected rev, streamMaxLen, stream field, event
-- JSON ('' = no event), then field/value pairs. Writes only if `rev` is still the one read
-- (and moves it). Returns 1, 0 to retry, -1 when the domain is gone.
local REV_FIELD, REV_READ = 'rev', ARGV[1]
--- @include "compare-revision"
redis.call('HSET', KEYS[1], 'rev', tonumber(rev) + 1, unpack(ARGV, 5, #ARGV))
if ARGV[4] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4]) end
return 1
