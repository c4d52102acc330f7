-- KEYS[1] broadcast. ARGV: cursor score, cursor contact id, total, enqueued, skipped (to add),
-- the cursor contact id the page started at ('' for the first page). Only while queued and
-- while the stored cursor is still the page's start (compare-and-set: a second run of the same
-- fan-out cannot count a page twice): returns 1; 0 when not queued (canceled, gone); 2 when
-- another run moved the cursor first.
local FANNING_OUT = $[broadcast.fanningOut]
if not FANNING_OUT[redis.call('HGET', KEYS[1], 'status')] then return 0 end
if (redis.call('HGET', KEYS[1], 'cursor_id') or '') ~= ARGV[6] then return 2 end
redis.call('HSET', KEYS[1], 'cursor_score', ARGV[1], 'cursor_id', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'total', ARGV[3])
redis.call('HINCRBY', KEYS[1], 'enqueued', ARGV[4])
redis.call('HINCRBY', KEYS[1], 'skipped', ARGV[5])
return 1
