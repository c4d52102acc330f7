-- KEYS[1] broadcast. ARGV: N, N field/value args to set, then fields to delete (null). Only a
-- draft's content changes.
local ALLOWED = $[broadcast.editable]
--- @include "status-guard"
local FIELDS_AT = 1
--- @include "set-then-delete-fields"
redis.call('HINCRBY', KEYS[1], 'rev', 1)
--- @include "ok-record"
