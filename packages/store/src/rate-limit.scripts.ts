/**
 * The Lua scripts of the per-team limits (rate-limit.store.ts), merged into the one registry of
 * scripts.ts (same naming, same slot check on every call). Both read the team's own limit from
 * its record and take from its counter in the same step: one round trip per request, and a
 * limit changed with the CLI holds from the next request on. Every key carries the team's tag.
 */
type Arg = string | number;

export const RATE_LIMIT_SCRIPTS = {
  /**
   * The GCRA step of the team's request rate (packages/core ratelimit: the rule and its header
   * values). KEYS[1] the team record, [2] the team's allowance (string: the theoretical arrival
   * time of the next request, ms). ARGV: default limit (requests per window; 0 = none), window ms.
   * The limit is the record's `rate_limit_rps` when set (0 there switches it off), else the
   * default. Time is the Redis server's (TIME), so API and SMTP processes on hosts whose clocks
   * differ share one allowance exactly. Returns {0} without a limit, else {limit, 1 admitted | 0
   * refused, TAT after the step (ms, decimal string), now (ms, decimal string)}.
   */
  petrelTakeRateLimit: {
    numberOfKeys: 2,
    lua: `
local limit = tonumber(redis.call('HGET', KEYS[1], 'rate_limit_rps') or ARGV[1]) or 0
if limit <= 0 then return {0} end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local window = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[2]) or '0')
if tat < now then tat = now end
local after = tat + window / limit
if after - now > window + 0.001 then
  return {limit, 0, string.format('%.3f', tat), string.format('%.3f', now)}
end
redis.call('SET', KEYS[2], string.format('%.3f', after), 'PX', math.ceil(after - now) + 1000)
return {limit, 1, string.format('%.3f', after), string.format('%.3f', now)}
`,
  },
  /**
   * The team's daily sending quota. KEYS[1] the team record, [2] the counter of the day. ARGV:
   * count, default quota (0 = none), the counter's TTL (ms). The quota is the record's
   * `daily_quota` when set (0 there switches it off), else the default. Takes `count` only when
   * all of it fits. Returns {0} without a quota, else {quota, used, 1 taken | 0 refused}.
   */
  petrelTakeDailyQuota: {
    numberOfKeys: 2,
    lua: `
local limit = tonumber(redis.call('HGET', KEYS[1], 'daily_quota') or ARGV[2]) or 0
if limit <= 0 then return {0} end
local n = tonumber(ARGV[1])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used + n > limit then return {limit, used, 0} end
used = redis.call('INCRBY', KEYS[2], n)
if used == n then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return {limit, used, 1}
`,
  },
} as const;

/** The scripts as commands of a connection, with their replies. */
export interface RateLimitStoreCommands {
  petrelTakeRateLimit(team: string, allowance: string, ...argv: Arg[]): Promise<(number | string)[]>;
  petrelTakeDailyQuota(team: string, counter: string, ...argv: Arg[]): Promise<number[]>;
}
