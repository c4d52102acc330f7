/**
 * Scripts of the email search indexes (email-search.ts), registered with the others in
 * scripts.ts. The status moves themselves happen in the scripts that change an email's status
 * (petrelRecordEmailEvents, petrelCancelScheduledEmail).
 */
type Arg = string | number;

export const EMAIL_SEARCH_SCRIPTS = {
  /**
   * Index new emails. KEYS[1..S] the team's status indexes, in EMAIL_STATUSES order (S = ARGV[1]);
   * then per email its record key followed by its term index keys. ARGV: S, retentionMs, then per
   * email: id, term count.
   * An email is indexed only while its record exists, scored by its `created_ms`, under each of
   * its terms and under its CURRENT status (read here, so an email whose status moved before
   * this ran lands in the right index). Each term index written is trimmed of ids older than the
   * retention before this email and expires a retention after its newest write: an index no one
   * writes any more vanishes with the records it lists. Returns how many emails were indexed.
   */
  petrelIndexEmails: {
    numberOfKeys: null,
    lua: `
local ns = tonumber(ARGV[1])
local retention = tonumber(ARGV[2])
local k = ns + 1
local p = 3
local indexed = 0
local touched = {}
local newest = {}
while p <= #ARGV do
  local id, nt = ARGV[p], tonumber(ARGV[p + 1])
  p = p + 2
  local h = redis.call('HMGET', KEYS[k], 'created_ms', 'status_rank')
  if h[1] then
    local score = tonumber(h[1])
    for j = 1, nt do
      local key = KEYS[k + j]
      redis.call('ZADD', key, score, id)
      if not newest[key] then touched[#touched + 1] = key; newest[key] = score
      elseif score > newest[key] then newest[key] = score end
    end
    local rank = tonumber(h[2] or '-1')
    if rank >= 0 and rank < ns then redis.call('ZADD', KEYS[rank + 1], score, id) end
    indexed = indexed + 1
  end
  k = k + 1 + nt
end
-- once per index of the call (a batch's emails share tags and subject words)
for _, key in ipairs(touched) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. (newest[key] - retention))
  redis.call('PEXPIRE', key, retention)
end
return indexed
`,
  },
  /**
   * Read only. KEYS[1] an index (email ids by creation ms). ARGV: direction (`desc`: towards
   * older, `asc`: towards newer), cursor score and id ('' '' = from the newest / oldest end),
   * count, bound (the oldest score still listed, for `desc`; ignored for `asc`).
   * Returns up to `count` members strictly past the cursor in listing order (score, then id, as
   * ZREVRANGE orders them), flat as id, score, …. The cursor need not be a member: an email
   * that left a status index since still marks the place by its score and id.
   */
  petrelEmailSearchRange: {
    numberOfKeys: 1,
    lua: `
local desc = ARGV[1] == 'desc'
local s, cid, count, bound = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]
local out = {}
if s ~= '' then
  local ties = redis.call('ZRANGE', KEYS[1], s, s, 'BYSCORE')
  if desc then
    for i = #ties, 1, -1 do
      if ties[i] < cid then out[#out + 1] = ties[i]; out[#out + 1] = s end
      if #out >= count * 2 then return out end
    end
  else
    for i = 1, #ties do
      if ties[i] > cid then out[#out + 1] = ties[i]; out[#out + 1] = s end
      if #out >= count * 2 then return out end
    end
  end
end
local rest
if desc then
  rest = redis.call('ZRANGE', KEYS[1], s == '' and '+inf' or '(' .. s, bound, 'BYSCORE', 'REV', 'LIMIT', 0, count - #out / 2, 'WITHSCORES')
else
  rest = redis.call('ZRANGE', KEYS[1], s == '' and '-inf' or '(' .. s, '+inf', 'BYSCORE', 'LIMIT', 0, count - #out / 2, 'WITHSCORES')
end
for _, v in ipairs(rest) do out[#out + 1] = v end
return out
`,
  },
} as const;

export interface EmailSearchStoreCommands {
  petrelIndexEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelEmailSearchRange(
    index: string,
    direction: 'desc' | 'asc',
    score: string,
    id: string,
    count: number,
    bound: string,
  ): Promise<string[]>;
}
