-- KEYS[1] domain, [2] the team's domain listing, [3] name → id hash, [4] events stream.
-- ARGV: id, name, createdMs, streamMaxLen, stream field, domain.created event JSON, then the
-- domain's field/value pairs. Returns 1, or 0 when the team has a domain of this name.
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
local FIELDS_FROM, CREATED_MS, EVENTS, STREAM_AT = 7, ARGV[3], KEYS[4], 4
--- @include "create-listed-record"
