-- KEYS[1] topic, KEYS[2] the team's topic listing (zset), KEYS[3] the team's events stream.
-- ARGV: id, createdMs, streamMaxLen, stream field, topic.created event JSON, then the topic's
-- field/value pairs. Returns 1.
local FIELDS_FROM, CREATED_MS, EVENTS, STREAM_AT = 6, ARGV[2], KEYS[3], 3
--- @include "create-listed-record"
