-- KEYS[1] idempotency record. ARGV: owner. Drops a claim whose request failed validation.
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'in_progress' then
  return redis.call('DEL', KEYS[1])
end
return 0
