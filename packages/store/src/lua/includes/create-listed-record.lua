-- Writes a new record and lists it, and its event with it: KEYS[1] the record (its field/value
-- args from ARGV[FIELDS_FROM] to the end), KEYS[2] the team's listing (member ARGV[1], the id,
-- scored CREATED_MS), EVENTS the team's events stream (MAXLEN ~ ARGV[STREAM_AT], then the
-- stream field and the event's JSON). Returns 1.
redis.call('HSET', KEYS[1], unpack(ARGV, FIELDS_FROM, #ARGV))
redis.call('ZADD', KEYS[2], CREATED_MS, ARGV[1])
redis.call('XADD', EVENTS, 'MAXLEN', '~', ARGV[STREAM_AT], '*', ARGV[STREAM_AT + 1], ARGV[STREAM_AT + 2])
return 1
