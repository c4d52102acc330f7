-- KEYS[1] an OAuth authorization code's or refresh token's record. ARGV: now (ms).
-- Marks the credential used (`used_ms`) unless it is already: the one exchange a code or refresh
-- token allows, atomic across API processes. Returns 1 when this call took it, 0 when it was
-- taken before (a replay), -1 when the record is gone (expired or never issued; no stray
-- one-field hash is left without a TTL).
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('HSETNX', KEYS[1], 'used_ms', ARGV[1])
