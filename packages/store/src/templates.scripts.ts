/**
 * The atomic steps of the templates store (templates.store.ts), one named Lua script each
 * (verb + key count, as in scripts.ts). Every write checks the template's `rev` (or current
 * version) so the store can read, compute and write without losing a concurrent change.
 */
import type { Redis } from 'ioredis';

/**
 * createTemplate-4
 * KEYS[1] template, KEYS[2] its first version, KEYS[3] listing zset, KEYS[4] alias index.
 * ARGV: id, alias ('' = none), createdMs, n template field-value args, then the template
 * pairs, then the version pairs. Returns 1, or 0 when the alias is taken.
 */
const createTemplate = `
local alias = ARGV[2]
if alias ~= '' then
  if redis.call('HSETNX', KEYS[4], alias, ARGV[1]) == 0 then return 0 end
end
local nt = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + nt))
redis.call('HSET', KEYS[2], unpack(ARGV, 5 + nt, #ARGV))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
`;

/**
 * updateTemplate-4
 * KEYS[1] template, KEYS[2] alias index, KEYS[3] current version, KEYS[4] candidate new version.
 * ARGV: id, expected rev, alias mode ('keep' | 'set'), alias ('' = none), new version id,
 * n template pairs args, n version pairs args (0 = content unchanged), template pairs, version pairs.
 * Returns 'missing' | 'retry' | 'alias_taken' | 'new' | 'in_place' | 'unchanged'.
 */
const updateTemplate = `
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
  local cur = redis.call('HGET', KEYS[1], 'current_version_id')
  local pub = redis.call('HGET', KEYS[1], 'published_version_id') or ''
  if cur == pub then
    redis.call('HSET', KEYS[4], 'id', ARGV[5], unpack(ARGV, 8 + nt, 7 + nt + nv))
    local versions = redis.call('HGET', KEYS[1], 'versions') or ''
    redis.call('HSET', KEYS[1], 'current_version_id', ARGV[5], 'versions', versions .. ' ' .. ARGV[5])
    result = 'new'
  else
    redis.call('DEL', KEYS[3])
    redis.call('HSET', KEYS[3], 'id', cur, unpack(ARGV, 8 + nt, 7 + nt + nv))
    result = 'in_place'
  end
end
if nt > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + nt)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return result
`;

/**
 * publishTemplate-1
 * KEYS[1] template. ARGV: expected current version id, now (ISO).
 * Returns 1, 0 when the current version changed meanwhile, -1 when the template is gone.
 */
const publishTemplate = `
local cur = redis.call('HGET', KEYS[1], 'current_version_id')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'published_version_id', cur, 'published_at', ARGV[2], 'updated_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`;

/**
 * deleteTemplate-N
 * KEYS[1] template, KEYS[2] alias index, KEYS[3] listing zset, KEYS[4..] its version keys.
 * ARGV: id, expected rev, versionTtlMs. Returns 1, 0 to retry (rev changed), -1 when gone.
 */
const deleteTemplate = `
local h = redis.call('HMGET', KEYS[1], 'rev', 'alias')
if not h[1] then return -1 end
if h[1] ~= ARGV[2] then return 0 end
local alias = h[2] or ''
if alias ~= '' and redis.call('HGET', KEYS[2], alias) == ARGV[1] then redis.call('HDEL', KEYS[2], alias) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for i = 4, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
`;

export interface TemplateCommands {
  petrelCreateTemplate(...args: (string | number)[]): Promise<number>;
  petrelUpdateTemplate(...args: (string | number)[]): Promise<string>;
  petrelPublishTemplate(...args: (string | number)[]): Promise<number>;
  petrelDeleteTemplate(numKeys: number, ...args: (string | number)[]): Promise<number>;
}

/** Register the template scripts on a connection (once per connection). */
export function defineTemplateScripts(redis: Redis): Redis & TemplateCommands {
  const marked = redis as Redis & { __petrelTemplateScripts?: boolean };
  if (!marked.__petrelTemplateScripts) {
    redis.defineCommand('petrelCreateTemplate', { numberOfKeys: 4, lua: createTemplate });
    redis.defineCommand('petrelUpdateTemplate', { numberOfKeys: 4, lua: updateTemplate });
    redis.defineCommand('petrelPublishTemplate', { numberOfKeys: 1, lua: publishTemplate });
    redis.defineCommand('petrelDeleteTemplate', { lua: deleteTemplate });
    marked.__petrelTemplateScripts = true;
  }
  return redis as Redis & TemplateCommands;
}
