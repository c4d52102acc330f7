-- KEYS[1] inbox record, [2] the team's inbox listing, [3] address index, [4] events stream.
-- ARGV: id, createdMs, mailbox, streamMaxLen, stream field, inbox.created JSON, record pairs.
-- Returns 1, or 0 when the address has an inbox already (nothing written).
if redis.call('HSETNX', KEYS[3], ARGV[3], ARGV[1]) == 0 then return 0 end
local FIELDS_FROM, CREATED_MS, EVENTS, STREAM_AT = 7, ARGV[2], KEYS[4], 4
--- @include "create-listed-record"
