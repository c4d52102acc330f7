-- KEYS[1] template, KEYS[2] alias index, KEYS[3] current version, KEYS[4] candidate new version.
-- ARGV: id, expected rev, alias mode ('keep' | 'set'), alias ('' = none), new version id,
-- n template pairs args, n version pairs args (0 = content unchanged), template pairs, version pairs.
-- Returns 'missing' | 'retry' | 'alias_taken' | 'new' | 'unchanged'.
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 'retry' end
local id = ARGV[1]
if ARGV[3] == 'set' then
  local old = redis.call('HGET', KEYS[1], 'alias') or ''
  local new = ARGV[4]
  if new ~= old then
    if new ~= '' then
      local owner = redis.call('HGET', KEYS[2], new)
      if owner and owner ~= id then return 'alias_taken' end
      redis.call('HSET', KEYS[2], new, id)
    end
    if old ~= '' and redis.call('HGET', KEYS[2], old) == id then redis.call('HDEL', KEYS[2], old) end
    redis.call('HSET', KEYS[1], 'alias', new)
  end
end
local nt = tonumber(ARGV[6])
local nv = tonumber(ARGV[7])
local result = 'unchanged'
if nv > 0 then
  -- Every content edit gets a new version id (see templates.store.ts): a publish checked against
  -- the id read before the edit then finds it changed.
  local cur = redis.call('HGET', KEYS[1], 'current_version_id')
  local pub = redis.call('HGET', KEYS[1], 'published_version_id') or ''
  local versions = redis.call('HGET', KEYS[1], 'versions') or ''
  if cur ~= pub then
    -- The current version is a draft that was never published: no email pinned it.
    redis.call('DEL', KEYS[3])
    local kept = {}
    for v in string.gmatch(versions, '%S+') do
      if v ~= cur then kept[#kept + 1] = v end
    end
    versions = table.concat(kept, ' ')
  end
  redis.call('HSET', KEYS[4], 'id', ARGV[5], unpack(ARGV, 8 + nt, 7 + nt + nv))
  if versions ~= '' then versions = versions .. ' ' end
  redis.call('HSET', KEYS[1], 'current_version_id', ARGV[5], 'versions', versions .. ARGV[5])
  result = 'new'
end
if nt > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + nt)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return result
