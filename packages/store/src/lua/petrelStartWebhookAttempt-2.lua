-- KEYS[1] webhook, [2] an event log entry. Returns { the webhook's fields (HGETALL, flat),
-- the entry's fields as they were (id, type, created_at, status, next_attempt_ms, payload,
-- run_attempts, replays; empty when gone) }. With the webhook enabled the entry becomes
-- `attempting` unless it finished; with it gone or disabled, `failed` unless it succeeded.
local DELIVERING = $[webhook.delivering]
local FINISHED = $[webhookEvent.finished]
local w = redis.call('HGETALL', KEYS[1])
local h = redis.call('HMGET', KEYS[2], 'id', 'type', 'created_at', 'status', 'next_attempt_ms', 'payload', 'run_attempts', 'replays')
if not h[1] then return {w, {}} end
local st = h[4]
local delivering = false
for i = 1, #w, 2 do
  if w[i] == 'status' then delivering = DELIVERING[w[i + 1]] or false end
end
if delivering then
  if not FINISHED[st] then redis.call('HSET', KEYS[2], 'status', $[webhookEvent:attempting]) end
elseif st ~= $[webhookEvent:success] then
  redis.call('HSET', KEYS[2], 'status', $[webhookEvent:failed], 'next_attempt_ms', '')
end
return {w, h}
