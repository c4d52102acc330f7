/**
 * The Lua scripts of the automations and automation-runs stores, merged into the one registry of
 * scripts.ts (names `petrel<Verb><Noun>`, slot-checked on every call). Every key is in KEYS and
 * carries the team's `{tag}`.
 *
 * A run's writes are compare-and-sets: nothing changes once the run's `status` is not
 * `running`; a step record moves only from the status the caller read (`expected`); a wait ends
 * once (HDEL of the run's `wait:<step>` field answers 1 to one caller only — the event or the
 * timeout, whichever comes first). Step records are JSON built by the store; the scripts decode
 * only their `status`.
 */
type Arg = string | number;

/** A finished run's two keys expire after the retention (ms, in the Lua local `retention`; 0 keeps them). */
const EXPIRE_RUN = `
if retention > 0 then
  redis.call('PEXPIRE', KEYS[1], retention)
  redis.call('PEXPIRE', KEYS[2], retention)
end
`;

/**
 * Shared tail of completing a step: KEYS[1] run, KEYS[2] steps, KEYS[3] active runs.
 * Expects locals `iso`, `runId`, `retention`, `nextFrom` (ARGV index of the next-step count,
 * followed by key/pending-JSON pairs). A next step that has a record already (two branches
 * joining) is not counted twice. Returns {1, runCompleted}.
 */
const FINISH_STEP = `
local n = tonumber(ARGV[nextFrom])
local added = 0
for i = 1, n do
  local k = ARGV[nextFrom + 2 * i - 1]
  if redis.call('HSETNX', KEYS[2], k, ARGV[nextFrom + 2 * i]) == 1 then added = added + 1 end
end
local open = redis.call('HINCRBY', KEYS[1], 'open', added - 1)
if open <= 0 then
  redis.call('HSET', KEYS[1], 'status', 'completed', 'completed_at', iso)
  redis.call('SREM', KEYS[3], runId)
  ${EXPIRE_RUN}
  return {1, 1}
end
return {1, 0}
`;

/** Decodes the status of step ARGV[1] in KEYS[2] into `cur` ('' when it has no record). */
const CURRENT_STATUS = `
local raw = redis.call('HGET', KEYS[2], ARGV[1])
local cur = ''
if raw then cur = cjson.decode(raw).status end
`;

export const AUTOMATION_SCRIPTS = {
  /**
   * KEYS[1] automation, [2] the team's listing, [3] the previous trigger's set, [4] the new
   * trigger's set. ARGV: id, mode ('create' | 'update'), createdMs, expected trigger (update: the
   * trigger the caller read), then field/value pairs. Returns 1; 0 when an updated automation is
   * gone; -1 when its trigger changed since the caller read it (read again and retry).
   */
  petrelSaveAutomation: {
    numberOfKeys: 4,
    lua: `
if ARGV[2] == 'update' then
  local trigger = redis.call('HGET', KEYS[1], 'trigger')
  if not trigger then return 0 end
  if trigger ~= ARGV[4] then return -1 end
  redis.call('SREM', KEYS[3], ARGV[1])
else
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
end
if #ARGV > 4 then redis.call('HSET', KEYS[1], unpack(ARGV, 5, #ARGV)) end
redis.call('SADD', KEYS[4], ARGV[1])
return 1
`,
  },
  /** KEYS[1] automation, [2] listing, [3] its trigger's set. ARGV: id, expected trigger. 1, 0 gone, -1 retry. */
  petrelDeleteAutomation: {
    numberOfKeys: 3,
    lua: `
local trigger = redis.call('HGET', KEYS[1], 'trigger')
if not trigger then return 0 end
if trigger ~= ARGV[2] then return -1 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] run, [2] its steps, [3] the automation's runs, [4] its active runs. ARGV: run id,
   * createdMs, first step key, first step JSON, then the run's field/value pairs. Returns 1, or
   * 0 when the run exists (the same event delivered twice).
   */
  petrelCreateAutomationRun: {
    numberOfKeys: 4,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 5, #ARGV))
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[4], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] run, [2] steps, then optionally [3] a wait set. ARGV: step key, expected status
   * ('' = no record), new JSON, wait field value (the event name; '' for none), wait member.
   * Writes the step if the run is running and the step is as expected; a wait also gets the
   * run's `wait:<step>` field and its entry in the contact's wait set. Returns 1 or 0.
   */
  petrelSetAutomationStep: {
    numberOfKeys: null,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
${CURRENT_STATUS}
if cur ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'wait:' .. ARGV[1], ARGV[4])
  redis.call('SADD', KEYS[3], ARGV[5])
end
return 1
`,
  },
  /**
   * KEYS[1] run, [2] steps, [3] active runs. ARGV: step key, completed JSON, iso, run id,
   * retentionMs, next count, then next key / pending JSON pairs. Returns {applied, runCompleted}.
   */
  petrelCompleteAutomationStep: {
    numberOfKeys: 3,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return {0, 0} end
${CURRENT_STATUS}
if cur == 'completed' or cur == 'failed' then return {0, 0} end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local iso, runId, retention, nextFrom = ARGV[3], ARGV[4], tonumber(ARGV[5]), 6
${FINISH_STEP}
`,
  },
  /**
   * KEYS[1] run, [2] steps, [3] active runs, [4] the wait's set. ARGV: step key, completed JSON,
   * iso, run id, retentionMs, next count, next pairs…, then: wait member, event name ('' for a
   * timeout), event payload JSON. The compare-and-set of a wait: only the caller whose HDEL of
   * `wait:<step>` removes it goes on. A timeout also leaves the wait set; an event's dispatch
   * removes the entry itself once it has queued the next steps (so a dispatch that died between
   * the two finds the entry again and finishes). Returns {won, runCompleted}.
   */
  petrelResolveAutomationWait: {
    numberOfKeys: 4,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return {0, 0} end
if redis.call('HDEL', KEYS[1], 'wait:' .. ARGV[1]) == 0 then return {0, 0} end
local tail = 7 + 2 * tonumber(ARGV[6])
if ARGV[tail + 1] ~= '' then
  redis.call('HSET', KEYS[2], 'we:' .. ARGV[tail + 1], ARGV[tail + 2])
else
  redis.call('SREM', KEYS[4], ARGV[tail])
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
local iso, runId, retention, nextFrom = ARGV[3], ARGV[4], tonumber(ARGV[5]), 6
${FINISH_STEP}
`,
  },
  /**
   * KEYS[1] run, [2] steps, [3] active runs. ARGV: step key, failed JSON, iso, run id,
   * retentionMs. Fails the step and the run. Returns 1, or 0 when the run was over.
   */
  petrelFailAutomationStep: {
    numberOfKeys: 3,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'status', 'failed', 'completed_at', ARGV[3])
redis.call('SREM', KEYS[3], ARGV[4])
local retention = tonumber(ARGV[5])
${EXPIRE_RUN}
return 1
`,
  },
  /**
   * KEYS[1] run, [2] steps, [3] active runs, then the wait sets of its open waits. ARGV: iso,
   * run id, retentionMs, then per wait set: its member. Cancels a running run: its open waits
   * end (fields and set entries) and its pending jobs find it over. Returns 1, or 0.
   */
  petrelCancelAutomationRun: {
    numberOfKeys: null,
    lua: `
if redis.call('HGET', KEYS[1], 'status') ~= 'running' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'completed_at', ARGV[1])
redis.call('SREM', KEYS[3], ARGV[2])
local fields = redis.call('HKEYS', KEYS[1])
for _, f in ipairs(fields) do
  if string.sub(f, 1, 5) == 'wait:' then redis.call('HDEL', KEYS[1], f) end
end
for i = 4, #KEYS do redis.call('SREM', KEYS[i], ARGV[i]) end
local retention = tonumber(ARGV[3])
${EXPIRE_RUN}
return 1
`,
  },
} as const satisfies Record<string, { numberOfKeys: number | null; lua: string }>;

export interface AutomationStoreCommands {
  petrelSaveAutomation(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteAutomation(...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateAutomationRun(...keysAndArgv: Arg[]): Promise<number>;
  petrelSetAutomationStep(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCompleteAutomationStep(...keysAndArgv: Arg[]): Promise<[number, number]>;
  petrelResolveAutomationWait(...keysAndArgv: Arg[]): Promise<[number, number]>;
  petrelFailAutomationStep(...keysAndArgv: Arg[]): Promise<number>;
  petrelCancelAutomationRun(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
}
