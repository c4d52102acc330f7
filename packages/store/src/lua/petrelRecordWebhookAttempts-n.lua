-- KEYS: per attempt, its webhook, its event log entry, the entry's attempts (list).
-- ARGV: attempts kept, entry TTL (ms), then per attempt: attempt JSON, status,
-- next_attempt_ms ('' = none), health ('healthy' | 'failing' | 'disable'), failing since (ms),
-- disable reason.
-- Records each attempt and its consequences, in order (several attempts to one webhook see each
-- other's health writes, as separate calls would). Returns per attempt 'disabled' when it
-- disabled an enabled webhook, 'recorded', or 'gone' when the webhook or the entry is gone.
local DELIVERING = $[webhook.delivering]
local out = {}
local kept, ttl = -tonumber(ARGV[1]), ARGV[2]
local a = 3
for k = 1, #KEYS, 3 do
  local webhook, entry, attempts = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  local health = ARGV[a + 3]
  local result = 'recorded'
  if redis.call('EXISTS', entry) == 0 then
    result = 'gone'
  else
    redis.call('RPUSH', attempts, ARGV[a])
    redis.call('LTRIM', attempts, kept, -1)
    redis.call('PEXPIRE', attempts, ttl)
    redis.call('HSET', entry, 'status', ARGV[a + 1], 'next_attempt_ms', ARGV[a + 2])
    redis.call('HINCRBY', entry, 'run_attempts', 1)
    local status = redis.call('HGET', webhook, 'status')
    if not status then
      result = 'gone'
    elseif health == 'healthy' then
      redis.call('HSET', webhook, 'failing_since_ms', '')
    else
      if (redis.call('HGET', webhook, 'failing_since_ms') or '') == '' then
        redis.call('HSET', webhook, 'failing_since_ms', ARGV[a + 4])
      end
      if health == 'disable' and DELIVERING[status] then
        redis.call('HSET', webhook, 'status', $[webhook:disabled], 'disabled_reason', ARGV[a + 5])
        result = $[webhook:disabled]
      end
    end
  end
  out[#out + 1] = result
  a = a + 6
end
return out
