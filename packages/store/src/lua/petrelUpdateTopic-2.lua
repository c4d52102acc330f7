-- KEYS[1] topic, KEYS[2] events stream. ARGV: expected updated_at, streamMaxLen, stream field,
-- topic.updated event JSON, n (field/value args to set), the n args, then fields to delete.
-- Writes only if `updated_at` is still the one the caller read (it moves forward on every
-- write, so it versions the record). Returns 1, 0 to retry, -1 when the topic is gone.
local REV_FIELD, REV_READ = 'updated_at', ARGV[1]
--- @include "compare-revision"
local FIELDS_AT = 5
--- @include "set-then-delete-fields"
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])
return 1
