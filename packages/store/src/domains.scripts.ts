/**
 * The Lua scripts of the domains store, merged into the one registry of scripts.ts (names
 * `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and carries the team's
 * `{tag}`; the global check schedule is never touched here (it is used alone).
 */
type Arg = string | number;

export const DOMAIN_SCRIPTS = {
  /**
   * KEYS[1] domain, [2] the team's domain listing, [3] name → id hash, [4] events stream.
   * ARGV: id, name, createdMs, streamMaxLen, stream field, domain.created event JSON, then the
   * domain's field/value pairs. Returns 1, or 0 when the team has a domain of this name.
   */
  petrelCreateDomain: {
    numberOfKeys: 4,
    lua: `
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
`,
  },
  /**
   * KEYS[1] domain, [2] events stream. ARGV: expected rev, streamMaxLen, stream field, event
   * JSON ('' = no event), then field/value pairs. Writes only if `rev` is still the one read
   * (and moves it). Returns 1, 0 to retry, -1 when the domain is gone.
   */
  petrelUpdateDomain: {
    numberOfKeys: 2,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'rev', tonumber(rev) + 1, unpack(ARGV, 5, #ARGV))
if ARGV[4] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4]) end
return 1
`,
  },
  /**
   * KEYS[1] domain, [2] listing, [3] name → id hash, [4] events stream. ARGV: id, name,
   * expected rev, streamMaxLen, stream field, domain.deleted event JSON.
   * Returns 1, 0 to retry (changed since read), -1 when the domain is gone.
   */
  petrelDeleteDomain: {
    numberOfKeys: 4,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[3] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
`,
  },
} as const;

export interface DomainStoreCommands {
  petrelCreateDomain(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateDomain(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteDomain(...keysAndArgv: Arg[]): Promise<number>;
}
