/**
 * The Lua scripts of the contacts, segments and contact-properties stores, merged into the one
 * registry of scripts.ts (same names `petrel<Verb><Noun>`, same slot check on every call). Every
 * key a script touches is in KEYS and carries the team's `{tag}`; an event a write describes is
 * appended to the team's events stream by the same script.
 *
 * Contact writes that read first (update, delete, topic choices) are optimistic: the contact
 * hash's `rev` counter moves on every write of the contact, its segments or its topic choices,
 * and a script writes only if `rev` is still the one its caller read (else the caller retries).
 */
type Arg = string | number;

export const CONTACT_SCRIPTS = {
  /**
   * KEYS[1] contact, [2] contact listing, [3] mailbox → id, [4] unsubscribed mailboxes,
   * [5] the contact's segments, [6] events stream, then S segment records, S segment member
   * listings, T topic records, T topic subscription hashes.
   * ARGV: id, mailbox, createdMs, unsubscribed ('1'|'0'), S, T, streamMaxLen, stream field,
   * contact.created event JSON, F, F field/value args, S segment ids, T subscriptions.
   * Returns {'ok', id} | {'taken', existing id} | {'no_segment', index} | {'no_topic', index}.
   */
  petrelCreateContact: {
    numberOfKeys: null,
    lua: `
local ns, nt = tonumber(ARGV[5]), tonumber(ARGV[6])
local existing = redis.call('HGET', KEYS[3], ARGV[2])
if existing then return {'taken', existing} end
for i = 1, ns do
  if redis.call('EXISTS', KEYS[6 + i]) == 0 then return {'no_segment', tostring(i - 1)} end
end
for i = 1, nt do
  if redis.call('EXISTS', KEYS[6 + 2 * ns + i]) == 0 then return {'no_topic', tostring(i - 1)} end
end
local nf = tonumber(ARGV[10])
redis.call('HSET', KEYS[1], unpack(ARGV, 11, 10 + nf))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
if ARGV[4] == '1' then redis.call('SADD', KEYS[4], ARGV[2]) else redis.call('SREM', KEYS[4], ARGV[2]) end
local p = 11 + nf
for i = 1, ns do
  redis.call('SADD', KEYS[5], ARGV[p])
  redis.call('ZADD', KEYS[6 + ns + i], ARGV[3], ARGV[1])
  p = p + 1
end
for i = 1, nt do
  redis.call('HSET', KEYS[6 + 2 * ns + nt + i], ARGV[2], ARGV[p])
  p = p + 1
end
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[7], '*', ARGV[8], ARGV[9])
return {'ok', ARGV[1]}
`,
  },
  /**
   * KEYS[1] contact, [2] unsubscribed mailboxes, [3] events stream.
   * ARGV: expected rev, mailbox, unsubscribed ('1'|'0'|'' = unchanged), streamMaxLen, stream
   * field, contact.updated event JSON ('' = none), N, N field/value args to set, then the fields
   * to delete. Returns 1, 0 to retry (rev moved), -1 when the contact is gone.
   */
  petrelUpdateContact: {
    numberOfKeys: 3,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[1] then return 0 end
local ns = tonumber(ARGV[7])
if ns > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + ns)) end
if #ARGV > 7 + ns then redis.call('HDEL', KEYS[1], unpack(ARGV, 8 + ns, #ARGV)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[3] == '1' then redis.call('SADD', KEYS[2], ARGV[2]) elseif ARGV[3] == '0' then redis.call('SREM', KEYS[2], ARGV[2]) end
if ARGV[6] ~= '' then redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6]) end
return 1
`,
  },
  /**
   * KEYS[1] contact, [2] contact listing, [3] mailbox → id, [4] unsubscribed mailboxes,
   * [5] the contact's segments, [6] events stream, then M segment member listings (the
   * contact's segments), then every topic subscription hash of the team.
   * ARGV: id, mailbox, expected rev, streamMaxLen, stream field, contact.deleted event JSON, M.
   * Returns 1, 0 to retry, -1 when the contact is gone.
   */
  petrelDeleteContact: {
    numberOfKeys: null,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return -1 end
if rev ~= ARGV[3] then return 0 end
local nm = tonumber(ARGV[7])
for i = 7, 6 + nm do redis.call('ZREM', KEYS[i], ARGV[1]) end
for i = 7 + nm, #KEYS do redis.call('HDEL', KEYS[i], ARGV[2]) end
redis.call('DEL', KEYS[1], KEYS[5])
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('SREM', KEYS[4], ARGV[2])
redis.call('XADD', KEYS[6], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
`,
  },
  /**
   * KEYS[1] contact, [2] events stream, then N topic records, N topic subscription hashes.
   * ARGV: expected rev, mailbox, streamMaxLen, stream field, contact.topics.updated event JSON
   * ('' = none), then N subscriptions. Returns {1}, {0} to retry, {-1} when the contact is gone,
   * {-2, index} when a topic does not exist (nothing written).
   */
  petrelSetContactTopics: {
    numberOfKeys: null,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if not rev then return {-1} end
if rev ~= ARGV[1] then return {0} end
local n = (#KEYS - 2) / 2
for i = 1, n do
  if redis.call('EXISTS', KEYS[2 + i]) == 0 then return {-2, i - 1} end
end
for i = 1, n do redis.call('HSET', KEYS[2 + n + i], ARGV[2], ARGV[5 + i]) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
if ARGV[5] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5]) end
return {1}
`,
  },
  /**
   * KEYS[1] contact, [2] its segments, [3] segment, [4] segment member listing.
   * ARGV: contact id, segment id, 'add' | 'remove'. Adding is idempotent. Returns 1 (added, or
   * removed), 0 (remove: was not a member), -1 no contact, -2 no segment.
   */
  petrelSetContactSegment: {
    numberOfKeys: 4,
    lua: `
local ms = redis.call('HGET', KEYS[1], 'created_ms')
if not ms then return -1 end
if redis.call('EXISTS', KEYS[3]) == 0 then return -2 end
local changed
if ARGV[3] == 'add' then
  changed = redis.call('SADD', KEYS[2], ARGV[2])
  redis.call('ZADD', KEYS[4], ms, ARGV[1])
  if changed == 0 then return 1 end
else
  changed = redis.call('SREM', KEYS[2], ARGV[2])
  redis.call('ZREM', KEYS[4], ARGV[1])
  if changed == 0 then return 0 end
end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`,
  },
  /**
   * A batch of an import. KEYS[1] contact listing, [2] mailbox → id, [3] unsubscribed
   * mailboxes, then S segment records, S segment member listings, T topic records, T topic
   * subscription hashes, then per row its contact record and its segment set.
   * ARGV: S, T, S segment ids, T subscriptions, then per row: mailbox, id, '1' if the contact
   * exists ('0' = create), unsubscribed ('1'|'0'|''), createdMs, N, D, N field/value args, D
   * fields to delete.
   * Every row is first checked against the mailbox index (the caller read it): if any row's
   * contact changed meanwhile nothing is written and -1 asks for a retry. Segments and topics
   * deleted since the import started are skipped. Returns the number of rows written.
   */
  petrelUpsertContacts: {
    numberOfKeys: null,
    lua: `
local ns, nt = tonumber(ARGV[1]), tonumber(ARGV[2])
local segs, tops = {}, {}
for i = 1, ns do
  if redis.call('EXISTS', KEYS[3 + i]) == 1 then segs[#segs + 1] = i end
end
for i = 1, nt do
  if redis.call('EXISTS', KEYS[3 + 2 * ns + i]) == 1 then tops[#tops + 1] = i end
end
local first = 3 + ns + nt
local rows = {}
local p = first
local k = 4 + 2 * ns + 2 * nt
while p <= #ARGV do
  local nf, nd = tonumber(ARGV[p + 5]), tonumber(ARGV[p + 6])
  rows[#rows + 1] = {p = p, k = k, nf = nf, nd = nd}
  local owner = redis.call('HGET', KEYS[2], ARGV[p])
  if ARGV[p + 2] == '1' then
    if owner ~= ARGV[p + 1] then return -1 end
  elseif owner then
    return -1
  end
  p = p + 7 + nf + nd
  k = k + 2
end
for _, r in ipairs(rows) do
  local q = r.p
  local mailbox, id = ARGV[q], ARGV[q + 1]
  local rec, rsegs = KEYS[r.k], KEYS[r.k + 1]
  if r.nf > 0 then redis.call('HSET', rec, unpack(ARGV, q + 7, q + 6 + r.nf)) end
  if r.nd > 0 then redis.call('HDEL', rec, unpack(ARGV, q + 7 + r.nf, q + 6 + r.nf + r.nd)) end
  if ARGV[q + 2] == '1' then
    redis.call('HINCRBY', rec, 'rev', 1)
  else
    redis.call('ZADD', KEYS[1], ARGV[q + 4], id)
    redis.call('HSET', KEYS[2], mailbox, id)
  end
  if ARGV[q + 3] == '1' then redis.call('SADD', KEYS[3], mailbox) elseif ARGV[q + 3] == '0' then redis.call('SREM', KEYS[3], mailbox) end
  local ms = redis.call('HGET', rec, 'created_ms')
  for _, i in ipairs(segs) do
    redis.call('SADD', rsegs, ARGV[2 + i])
    redis.call('ZADD', KEYS[3 + ns + i], ms, id)
  end
  for _, i in ipairs(tops) do
    redis.call('HSET', KEYS[3 + 2 * ns + nt + i], mailbox, ARGV[2 + ns + i])
  end
end
return #rows
`,
  },
  /**
   * KEYS[1] property, [2] property listing, [3] key → id. ARGV: id, key, createdMs, then the
   * property's field/value args. Returns 1, or 0 when the key is taken.
   */
  petrelCreateContactProperty: {
    numberOfKeys: 3,
    lua: `
if redis.call('HSETNX', KEYS[3], ARGV[2], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 4, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] property, [2] property listing, [3] key → id. ARGV: id. Values stored under the id
   * on contacts become unreadable with it. Returns 1, or 0 when it is gone.
   */
  petrelDeleteContactProperty: {
    numberOfKeys: 3,
    lua: `
local key = redis.call('HGET', KEYS[1], 'key')
if not key then return 0 end
if redis.call('HGET', KEYS[3], key) == ARGV[1] then redis.call('HDEL', KEYS[3], key) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`,
  },
} as const satisfies Record<string, { numberOfKeys: number | null; lua: string }>;

/** The contact scripts as commands of a connection, with their replies. */
export interface ContactStoreCommands {
  petrelCreateContact(numKeys: number, ...keysAndArgv: Arg[]): Promise<[string, string]>;
  petrelUpdateContact(contact: string, unsubscribed: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteContact(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelSetContactTopics(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
  petrelSetContactSegment(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpsertContacts(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateContactProperty(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteContactProperty(...keysAndArgv: Arg[]): Promise<number>;
}
