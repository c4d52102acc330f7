-- KEYS[1] email record, KEYS[2] timeline, KEYS[3], KEYS[4] the team's unfinished indexes of the
-- send and broadcast lanes (a canceled email leaves them). ARGV: eventJSON head (completed with the next sequence
-- number as petrelRecordEmailEvents does), canceledRank.
-- KEYS[5] and KEYS[6]: the team's `scheduled` and `canceled` status indexes (email-search.ts),
-- between which a cancel moves the email.
-- Cancels only an email that is still `scheduled`. Returns 1 if canceled, 0 if not scheduled,
-- -1 if missing.
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return -1 end
local CANCELLABLE = $[email.cancellable]
if not CANCELLABLE[st] then return 0 end
redis.call('HSET', KEYS[1], 'status', $[email:canceled], 'status_rank', ARGV[2])
redis.call('ZREM', KEYS[5], redis.call('HGET', KEYS[1], 'id'))
redis.call('ZADD', KEYS[6], redis.call('HGET', KEYS[1], 'created_ms') or 0, redis.call('HGET', KEYS[1], 'id'))
redis.call('ZREM', KEYS[3], redis.call('HGET', KEYS[1], 'id'))
redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'id'))
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if seq == 1 then seq = redis.call('HINCRBY', KEYS[1], 'seq', redis.call('LLEN', KEYS[2])) end
-- the first event after the record's own `first_event` creates the timeline list, which expires
-- with the record (as in petrelRecordEmailEvents)
if redis.call('RPUSH', KEYS[2], ARGV[1] .. seq .. '}}') == 1 then
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
end
return 1
