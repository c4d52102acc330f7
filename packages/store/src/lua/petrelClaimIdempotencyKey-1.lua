-- KEYS[1] idempotency record. ARGV: fingerprint, owner, now(ms), lockMs, ttlMs.
-- Returns { outcome, started, status, body }:
--  - 'proceed'   key absent (claimed; started=now) or a previous claim's lock expired
--                (taken over; started kept, so ids derived from it stay the same)
--  - 'mismatch'  fingerprint differs
--  - 'in_flight' claimed by a live request
--  - 'replay'    done: status + body returned verbatim
local h = redis.call('HMGET', KEYS[1], 'fp', 'state', 'lock_until', 'started', 'status', 'body')
if not h[1] then
  redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'in_progress', 'owner', ARGV[2],
    'started', ARGV[3], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'proceed', ARGV[3]}
end
if h[1] ~= ARGV[1] then return {'mismatch', h[4]} end
if h[2] == 'done' then return {'replay', h[4], h[5], h[6]} end
if tonumber(h[3]) > tonumber(ARGV[3]) then return {'in_flight', h[4]} end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
return {'proceed', h[4]}
