-- Append request logs (request-logs.store.ts). KEYS[1] the team's log stream (summaries),
-- KEYS[2] its bodies stream. ARGV: maxEntries, cutoff stream id (`<ms>-0`: older entries are past
-- retention), ttl ms, then per entry 8 values: tag, method, endpoint, status, user agent ('' none),
-- created_at, request body JSON, response body JSON. Each summary gets its stream id from Redis
-- (`*`); its bodies go to the bodies stream under the same id, so one id finds both. The summaries
-- are trimmed to about maxEntries (`MAXLEN ~`: whole macro nodes, cheap) and to the retention,
-- then the bodies exactly to the oldest summary left. Both expire `ttl` after the last write (a
-- team that stops calling the API leaves nothing behind). Returns the new ids.
local ids = {}
for p = 4, #ARGV, 8 do
  local id = redis.call('XADD', KEYS[1], '*', 't', ARGV[p], 'm', ARGV[p + 1], 'e', ARGV[p + 2],
    's', ARGV[p + 3], 'u', ARGV[p + 4], 'c', ARGV[p + 5])
  redis.call('XADD', KEYS[2], id, 'q', ARGV[p + 6], 'r', ARGV[p + 7])
  ids[#ids + 1] = id
end
redis.call('XTRIM', KEYS[1], 'MAXLEN', '~', ARGV[1])
redis.call('XTRIM', KEYS[1], 'MINID', '~', ARGV[2])
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)[1]
if first then
  redis.call('XTRIM', KEYS[2], 'MINID', first[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
else
  redis.call('DEL', KEYS[1], KEYS[2])
end
return ids
