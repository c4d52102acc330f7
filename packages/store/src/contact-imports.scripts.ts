/**
 * The Lua scripts of the contact-imports store, merged into the one registry of scripts.ts (same
 * names `petrel<Verb><Noun>`, same slot check on every call). Each takes the import's record and,
 * where it ends or claims a run, the list of the upload's chunks: both under the team's hash tag.
 */
type Arg = string | number;

export const CONTACT_IMPORT_SCRIPTS = {
  /**
   * KEYS[1] record, KEYS[2] chunks. ARGV: runId, now (ISO). Takes a queued or running import
   * for the run and removes the expiries; returns the record's fields flat, or nil when gone.
   */
  petrelClaimContactImport: {
    numberOfKeys: 2,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return nil end
local st = redis.call('HGET', KEYS[1], 'status')
if st == 'queued' or st == 'in_progress' then
  redis.call('HSET', KEYS[1], 'status', 'in_progress', 'owner', ARGV[1])
  redis.call('HSETNX', KEYS[1], 'started_at', ARGV[2])
  redis.call('PERSIST', KEYS[1])
  redis.call('PERSIST', KEYS[2])
end
return redis.call('HGETALL', KEYS[1])
`,
  },
  /** KEYS[1] record. ARGV: runId, then field/value pairs. Writes them only for the owner: 1, else 0. */
  petrelCheckpointContactImport: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
`,
  },
  /**
   * KEYS[1] record, KEYS[2] chunks. ARGV: runId, then field/value pairs (the outcome). For the
   * owner only: writes the outcome, lets the run go and deletes the file. 1, else 0.
   */
  petrelFinishContactImport: {
    numberOfKeys: 2,
    lua: `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('HDEL', KEYS[1], 'owner')
redis.call('DEL', KEYS[2])
return 1
`,
  },
  /**
   * KEYS[1] record, KEYS[2] chunks. ARGV: error, now (ISO). Fails a queued or running import
   * whoever owns it and deletes the file: 1, or 0 when it is gone or has ended.
   */
  petrelAbandonContactImport: {
    numberOfKeys: 2,
    lua: `
local st = redis.call('HGET', KEYS[1], 'status')
if st ~= 'queued' and st ~= 'in_progress' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'failed', 'completed_at', ARGV[2], 'error', ARGV[1])
redis.call('HDEL', KEYS[1], 'owner')
redis.call('PERSIST', KEYS[1])
redis.call('DEL', KEYS[2])
return 1
`,
  },
} as const;

export interface ContactImportStoreCommands {
  petrelClaimContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
  petrelCheckpointContactImport(record: string, ...argv: Arg[]): Promise<unknown>;
  petrelFinishContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
  petrelAbandonContactImport(record: string, chunks: string, ...argv: Arg[]): Promise<unknown>;
}
