-- Decodes the status of step ARGV[1] in KEYS[2] into `cur` ('' when it has no record).
local raw = redis.call('HGET', KEYS[2], ARGV[1])
local cur = ''
if raw then cur = cjson.decode(raw).status end
