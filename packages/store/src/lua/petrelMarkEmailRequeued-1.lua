-- KEYS[1] an email record. ARGV: now (ms). Marks the email re-enqueued by the watchdog
-- (`watchdog_requeued_ms`) unless it is already: the once rule, atomic across schedulers.
-- Returns 1 when this call set the mark, 0 when it was set, -1 when the record is gone (no
-- stray one-field hash is left without a TTL).
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'watchdog_requeued_ms', ARGV[1])
