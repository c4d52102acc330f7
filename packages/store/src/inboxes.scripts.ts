/**
 * The Lua scripts of the inbox store (inboxes.store.ts), merged into the one registry of
 * scripts.ts. Every key is in KEYS and carries the team's `{tag}`: an inbox's threads,
 * messages, labels and indexes live in its team's slot, so each write is one script.
 */
type Arg = string | number;

/** XADD of ARGV events starting at `first` (count at `count`) on KEYS[stream]. */
const XADD_EVENTS = (stream: string, maxLen: string, field: string, first: string, count: string) => `
for i = 0, tonumber(${count}) - 1 do
  redis.call('XADD', ${stream}, 'MAXLEN', '~', ${maxLen}, '*', ${field}, ARGV[${first} + i])
end`;

export const INBOX_SCRIPTS = {
  /**
   * KEYS[1] inbox record, [2] the team's inbox listing, [3] address index, [4] events stream.
   * ARGV: id, createdMs, mailbox, streamMaxLen, stream field, inbox.created JSON, record pairs.
   * Returns 1, or 0 when the address has an inbox already (nothing written).
   */
  petrelCreateInbox: {
    numberOfKeys: 4,
    lua: `
if redis.call('HSETNX', KEYS[3], ARGV[3], ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 7, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
`,
  },
  /**
   * KEYS[1] a record (inbox), [2] events stream. ARGV: streamMaxLen, stream field, event JSON
   * ('' for none), field/value pairs, then '--' and fields to delete. Writes only an existing
   * record; returns 1, or 0 when it does not exist.
   */
  petrelUpdateInboxRecord: {
    numberOfKeys: 2,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local set, del, i = {}, {}, 4
while i <= #ARGV and ARGV[i] ~= '--' do set[#set + 1] = ARGV[i]; i = i + 1 end
for j = i + 1, #ARGV do del[#del + 1] = ARGV[j] end
if #set > 0 then redis.call('HSET', KEYS[1], unpack(set)) end
if #del > 0 then redis.call('HDEL', KEYS[1], unpack(del)) end
if ARGV[3] ~= '' then redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ARGV[3]) end
return 1
`,
  },
  /**
   * KEYS[1] inbox record, [2] listing, [3] address index, [4] events stream.
   * ARGV: id, mailbox, streamMaxLen, stream field, inbox.deleted JSON. The inbox stops existing
   * here (its threads are removed after, in batches). Returns 1, or 0 when it was gone.
   */
  petrelDeleteInbox: {
    numberOfKeys: 4,
    lua: `
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('ZREM', KEYS[2], ARGV[1])
if redis.call('HGET', KEYS[3], ARGV[2]) == ARGV[1] then redis.call('HDEL', KEYS[3], ARGV[2]) end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
`,
  },
  /**
   * One write of a thread, optionally with a new message of it (compare-and-set on `rev`).
   *
   * KEYS: [1] thread hash, [2] the inbox's thread listing, [3..7] the folder listings (inbox,
   * archive, spam, sent, trash), [8] unread listing, [9] events stream, then A listings of the
   * thread's labels and R of labels it lost; with a message also (from M = 10 + A + R) [M] the
   * thread's message listing, [M+1] the message hash, [M+2] Message-ID index, [M+3] subject
   * index, [M+4..] the message's search-term listings.
   * ARGV: [1] thread id, [2] expected rev ('' = the thread must not exist), [3] folder
   * (1..5, the KEYS offset − 2), [4] read 1/0, [5] last message ms, [6] streamMaxLen,
   * [7] stream field, [8] event count E, [9] thread pair count P, [10] A, [11] R, then E events,
   * then P thread field/value pairs; with a message: message id, message ms, its Message-ID
   * ('' none), subject-key count S, S keys, then the message's field/value pairs.
   * Every listing (the inbox's, its folder's, unread, each label's) scores the thread by its
   * last message, so a filtered page can walk any of them from the same cursor.
   * Returns 1, or 0 when the thread changed (or exists / vanished) since it was read.
   */
  petrelWriteInboxThread: {
    numberOfKeys: null,
    lua: `
local rev = redis.call('HGET', KEYS[1], 'rev')
if ARGV[2] == '' then
  if rev then return 0 end
elseif rev ~= ARGV[2] then
  return 0
end
local id, folder, last = ARGV[1], tonumber(ARGV[3]), tonumber(ARGV[5])
local e, p = tonumber(ARGV[8]), tonumber(ARGV[9])
local la, lr = tonumber(ARGV[10]), tonumber(ARGV[11])
local pos = 12 + e
redis.call('HSET', KEYS[1], 'rev', tostring((tonumber(rev) or 0) + 1), unpack(ARGV, pos, pos + p - 1))
pos = pos + p
redis.call('ZADD', KEYS[2], last, id)
for k = 3, 7 do
  if k == folder + 2 then redis.call('ZADD', KEYS[k], last, id) else redis.call('ZREM', KEYS[k], id) end
end
if ARGV[4] == '1' then redis.call('ZREM', KEYS[8], id) else redis.call('ZADD', KEYS[8], last, id) end
for k = 10, 9 + la do redis.call('ZADD', KEYS[k], last, id) end
for k = 10 + la, 9 + la + lr do redis.call('ZREM', KEYS[k], id) end
${XADD_EVENTS('KEYS[9]', 'ARGV[6]', 'ARGV[7]', '12', 'e')}
local m = 10 + la + lr
if #KEYS >= m then
  local mid, ms, header = ARGV[pos], ARGV[pos + 1], ARGV[pos + 2]
  local s = tonumber(ARGV[pos + 3])
  redis.call('ZADD', KEYS[m], ms, mid)
  if header ~= '' then redis.call('HSETNX', KEYS[m + 2], header, id) end
  for k = pos + 4, pos + 3 + s do redis.call('HSET', KEYS[m + 3], ARGV[k], id .. ' ' .. ms) end
  redis.call('HSET', KEYS[m + 1], unpack(ARGV, pos + 4 + s, #ARGV))
  for k = m + 4, #KEYS do redis.call('ZADD', KEYS[k], ms, mid) end
end
return 1
`,
  },
  /**
   * One write of a draft with its `inbox.draft.*` event, and the `drafts` count of the thread a
   * reply draft belongs to (bumping the thread's `rev`, so a thread write read before this one
   * retries with the new count).
   *
   * KEYS: [1] draft hash, [2] its files hash, [3] the inbox's open drafts (zset by update ms),
   * [4] events stream, [5] the thread hash (the draft hash again for a standalone draft).
   * ARGV: [1] op (create, update, remove, sent), [2] draft id, [3] ms, [4] streamMaxLen,
   * [5] stream field, [6] event JSON, [7] draft JSON, [8] thread given 1/0, [9] replace files
   * 1/0, [10] kept ms of a sent draft (its files too: a replayed send rebuilds the same
   * email), then file id/content pairs.
   * Returns 1; 0 when the draft does not exist (create: it exists already); 2 when it was sent.
   */
  petrelWriteInboxDraft: {
    numberOfKeys: 5,
    lua: `
local op, id, ms = ARGV[1], ARGV[2], ARGV[3]
local exists = redis.call('EXISTS', KEYS[1]) == 1
local function threadDrafts(delta)
  if ARGV[8] ~= '1' or not redis.call('HGET', KEYS[5], 'rev') then return end
  local n = (tonumber(redis.call('HGET', KEYS[5], 'drafts')) or 0) + delta
  if n < 0 then n = 0 end
  redis.call('HSET', KEYS[5], 'drafts', tostring(n))
  redis.call('HINCRBY', KEYS[5], 'rev', 1)
end
if op == 'create' then
  if exists then return 0 end
  threadDrafts(1)
else
  if not exists then return 0 end
  if redis.call('HGET', KEYS[1], 'sent') == '1' then return 2 end
  if op ~= 'update' then threadDrafts(-1) end
end
if op == 'remove' then
  redis.call('DEL', KEYS[1], KEYS[2])
  redis.call('ZREM', KEYS[3], id)
else
  redis.call('HSET', KEYS[1], 'record', ARGV[7])
  if ARGV[9] == '1' then redis.call('DEL', KEYS[2]) end
  if #ARGV > 10 then redis.call('HSET', KEYS[2], unpack(ARGV, 11, #ARGV)) end
  if op == 'sent' then
    redis.call('HSET', KEYS[1], 'sent', '1')
    redis.call('ZREM', KEYS[3], id)
    redis.call('PEXPIRE', KEYS[1], ARGV[10])
    redis.call('PEXPIRE', KEYS[2], ARGV[10])
  else
    redis.call('ZADD', KEYS[3], ms, id)
  end
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[4], '*', ARGV[5], ARGV[6])
return 1
`,
  },
} as const;

/** A script over an inbox record, the team's inbox listing, the address index and the events stream. */
type InboxRecordScript = (
  record: string,
  listing: string,
  addresses: string,
  stream: string,
  ...argv: Arg[]
) => Promise<number>;

/** The scripts as commands of a connection, with their replies. */
export interface InboxStoreCommands {
  petrelCreateInbox: InboxRecordScript;
  petrelUpdateInboxRecord(record: string, stream: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteInbox: InboxRecordScript;
  petrelWriteInboxThread(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelWriteInboxDraft(
    draft: string,
    files: string,
    drafts: string,
    stream: string,
    thread: string,
    ...argv: Arg[]
  ): Promise<number>;
}
