-- KEYS[1] an event log entry. Starts a replay: pending, a fresh run of the schedule. Returns
-- the replay's number, or -1 when the entry is gone.
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
redis.call('HSET', KEYS[1], 'status', $[webhookEvent:pending], 'next_attempt_ms', '', 'run_attempts', 0)
return redis.call('HINCRBY', KEYS[1], 'replays', 1)
