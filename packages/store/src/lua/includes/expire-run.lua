-- A finished run's two keys (KEYS[1] run, KEYS[2] its steps) expire after the retention (ms, in
-- the local `retention`; 0 keeps them).
if retention > 0 then
  redis.call('PEXPIRE', KEYS[1], retention)
  redis.call('PEXPIRE', KEYS[2], retention)
end
