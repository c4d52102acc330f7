-- One write of a thread, optionally with a new message of it (compare-and-set on `rev`).
--
-- KEYS: [1] thread hash, [2] the inbox's thread listing, [3..7] the folder listings (inbox,
-- archive, spam, sent, trash), [8] unread listing, [9] events stream, then A listings of the
-- thread's labels and R of labels it lost; with a message also (from M = 10 + A + R) [M] the
-- thread's message listing, [M+1] the message hash, [M+2] Message-ID index, [M+3] subject
-- index, [M+4..] the message's search-term listings.
-- ARGV: [1] thread id, [2] expected rev ('' = the thread must not exist), [3] folder
-- (1..5, the KEYS offset − 2), [4] read 1/0, [5] last message ms, [6] streamMaxLen,
-- [7] stream field, [8] event count E, [9] thread pair count P, [10] A, [11] R, then E events,
-- then P thread field/value pairs; with a message: message id, message ms, its Message-ID
-- ('' none), subject-key count S, S keys, then the message's field/value pairs.
-- Every listing (the inbox's, its folder's, unread, each label's) scores the thread by its
-- last message, so a filtered page can walk any of them from the same cursor.
-- Returns 1, or 0 when the thread changed (or exists / vanished) since it was read.
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
for i = 0, e - 1 do
  redis.call('XADD', KEYS[9], 'MAXLEN', '~', ARGV[6], '*', ARGV[7], ARGV[12 + i])
end
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
