/**
 * The Lua scripts of the custom events store (custom-events.store.ts), merged into the one
 * registry of scripts.ts (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is
 * in KEYS and carries the team's `{tag}`.
 */
import { CONTACT_SCRIPTS } from './contacts.scripts.js';

type Arg = string | number;

export const CUSTOM_EVENT_SCRIPTS = {
  /**
   * KEYS[1] definition, [2] the team's definition listing, [3] the team's name index.
   * ARGV: id, name, createdMs, then the definition's field/value pairs.
   * The name is claimed in the same script, so two concurrent creates of one name cannot both
   * win. Returns 1, or 0 when the name is taken. The very script of a contact property, whose key
   * is claimed the same way.
   */
  petrelCreateCustomEvent: CONTACT_SCRIPTS.petrelCreateContactProperty,
  /**
   * KEYS[1] definition. ARGV: the `rev` read, updated_at, schema JSON ('' clears it).
   * Optimistic: writes only while `rev` is the one read. Returns 1, 0 (changed meanwhile: read
   * again) or -1 (gone).
   */
  petrelSetCustomEventSchema: {
    numberOfKeys: 1,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], 'schema') else redis.call('HSET', KEYS[1], 'schema', ARGV[3]) end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[2], 'rev', tonumber(rev) + 1)
return 1
`,
  },
  /**
   * KEYS[1] definition, [2] listing, [3] name index. ARGV: id, name.
   * The name's entry goes only while it still names this definition. Returns 1, or 0 when the
   * definition is gone.
   */
  petrelDeleteCustomEvent: {
    numberOfKeys: 3,
    lua: `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
return 1
`,
  },
  /**
   * KEYS[1] the team's received-event listing (zset by ms), [2] id → JSON (hash).
   * ARGV: id, receivedMs, JSON, cap. An id recorded already is left as it is (a retry); past the
   * cap the oldest entries go from both keys. Returns 1, or 0 for a repeat.
   */
  petrelRecordReceivedEvent: {
    numberOfKeys: 2,
    lua: `
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[3]) == 0 then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local excess = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[4])
if excess > 0 then
  local gone = redis.call('ZPOPMIN', KEYS[1], excess)
  for i = 1, #gone, 2 do redis.call('HDEL', KEYS[2], gone[i]) end
end
return 1
`,
  },
} as const;

/** The scripts as commands of a connection, with their replies. */
export interface CustomEventStoreCommands {
  petrelCreateCustomEvent(
    definition: string,
    listing: string,
    names: string,
    ...argv: Arg[]
  ): Promise<number>;
  petrelSetCustomEventSchema(definition: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteCustomEvent(
    definition: string,
    listing: string,
    names: string,
    id: string,
    name: string,
  ): Promise<number>;
  petrelRecordReceivedEvent(listing: string, data: string, ...argv: Arg[]): Promise<number>;
}
