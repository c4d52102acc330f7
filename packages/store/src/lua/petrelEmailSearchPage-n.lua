-- Read only: one step of a filtered listing (email-search.ts). KEYS: the D day sets
-- (email-search-postings.lua) of days ARGV[1] .. ARGV[1] + D - 1 (D = ARGV[2]), then the status
-- indexes of the query (email ids by creation ms). ARGV: first day, D, T, the T terms of the
-- query (statuses excepted), direction (`desc`: towards older, `asc`: towards newer), cursor ms
-- and id ('' '' = from the newest end), count, bound (the oldest ms still listed, 13 digits; '':
-- none).
-- Walks the most selective of the query's indexes (the fewest postings; a group counts one)
-- from the cursor, exclusive, in listing order (ms, then id, as ZREVRANGE orders the listing),
-- over at most `count` of its ids, and keeps those every other index lists: a status index as
-- a member, a term as a posting of the id at its ms or a group posting there that holds it.
-- Returns { more (1: the walk read `count` ids, more may follow), the last walked id's ms and
-- id (the next step's cursor), the kept ids… }.
--- @include "email-search-postings"
local day0, nd, nt = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local terms = {}
for i = 1, nt do terms[i] = ARGV[3 + i] end
local desc = ARGV[4 + nt] == 'desc'
local cms, cid = ARGV[5 + nt], ARGV[6 + nt]
local count = tonumber(ARGV[7 + nt])
local bound = ARGV[8 + nt]
if cms ~= '' then cms = ms13(cms) end
local statusKeys = {}
for k = nd + 1, #KEYS do statusKeys[#statusKeys + 1] = KEYS[k] end

-- the driver: the index with the fewest postings
local best, bestN
for i = 1, nt do
  local c = 0
  for d = 1, nd do
    c = c + redis.call('ZLEXCOUNT', KEYS[d], '[' .. terms[i] .. SEP, '(' .. terms[i] .. '\1')
  end
  if not bestN or c < bestN then best, bestN = i, c end
end
for i, k in ipairs(statusKeys) do
  local c = redis.call('ZCARD', k)
  if not bestN or c < bestN then best, bestN = nt + i, c end
end
if bestN == 0 then return { 0, '', '' } end

-- the walked ids and their ms, in listing order
local ids, mss = {}, {}
local function emit(id, ms)
  ids[#ids + 1] = id
  mss[#ids] = ms
  return #ids >= count
end
-- a block of ids of one ms in ascending order, past `past` (nil: all); true once full
local function emitBlock(block, ms, past)
  local from, to, step = 1, #block, 1
  if desc then from, to, step = #block, 1, -1 end
  for i = from, to, step do
    local id = block[i]
    if past == nil or (desc and id < past) or (not desc and id > past) then
      if emit(id, ms) then return true end
    end
  end
  return false
end

local function walkTerm(term)
  local n = #term
  local first, last, step = nd, 1, -1
  if not desc then first, last, step = 1, nd, 1 end
  -- lex bounds of the rest of the walk (past the cursor's ms)
  local hi, lo = '(' .. term .. '\1', '[' .. term .. SEP .. (desc and bound or '')
  if cms ~= '' then
    local d = dayOf(cms) - day0 + 1
    if d >= 1 and d <= nd and emitBlock(idsAt(KEYS[d], term, cms), cms, cid) then return end
    if desc then
      hi = '(' .. term .. SEP .. cms
      first = math.min(d, nd)
    else
      lo = '[' .. term .. SEP .. cms .. '\1'
      first = math.max(d, 1)
    end
  end
  for d = first, last, step do
    local key = KEYS[d]
    while true do
      local want = count - #ids
      local rest
      if desc then
        rest = redis.call('ZRANGE', key, hi, lo, 'BYLEX', 'REV', 'LIMIT', 0, want)
      else
        rest = redis.call('ZRANGE', key, lo, hi, 'BYLEX', 'LIMIT', 0, want)
      end
      -- by ms: a ms holding a group, and the last ms of a full reply (its block may go on, a
      -- group among the rest), are read whole; the others are as listed
      local full = #rest == want
      local lastMs = full and splitPosting(rest[#rest], n) or nil
      local i = 1
      while i <= #rest do
        local ms = splitPosting(rest[i], n)
        local j, grouped = i, false
        while j <= #rest do
          local m, x = splitPosting(rest[j], n)
          if m ~= ms then break end
          if isGroup(x) then grouped = true end
          j = j + 1
        end
        if grouped or ms == lastMs then
          if emitBlock(idsAt(key, term, ms), ms, nil) then return end
          if desc then hi = '(' .. term .. SEP .. ms else lo = '[' .. term .. SEP .. ms .. '\1' end
          break
        end
        for k = i, j - 1 do
          local _, x = splitPosting(rest[k], n)
          emit(x, ms)
        end
        if desc then hi = '(' .. term .. SEP .. ms else lo = '[' .. term .. SEP .. ms .. '\1' end
        i = j
      end
      if #ids >= count then return end
      if not full and i > #rest then break end
    end
  end
end

local function walkStatus(key)
  if cms ~= '' and emitBlock(redis.call('ZRANGE', key, cms, cms, 'BYSCORE'), cms, cid) then return end
  local from = cms == '' and (desc and '+inf' or '-inf') or '(' .. cms
  local want = count - #ids
  local rest
  if desc then
    rest = redis.call('ZRANGE', key, from, bound ~= '' and bound or '-inf', 'BYSCORE', 'REV', 'LIMIT', 0, want, 'WITHSCORES')
  else
    rest = redis.call('ZRANGE', key, from, '+inf', 'BYSCORE', 'LIMIT', 0, want, 'WITHSCORES')
  end
  -- single ids only: a ms cut by LIMIT goes on from the last id (the next step's cursor block)
  for i = 1, #rest, 2 do emit(rest[i], ms13(rest[i + 1])) end
end

if best <= nt then walkTerm(terms[best]) else walkStatus(statusKeys[best - nt]) end

-- keep the ids every other index lists
local keep = {}
for i = 1, #ids do keep[i] = true end
local grouped = {}
for t = 1, nt do
  if t ~= best then
    local term = terms[t]
    for i = 1, #ids do
      if keep[i] then
        local ms, id = mss[i], ids[i]
        local d = dayOf(ms) - day0 + 1
        local found = false
        if d >= 1 and d <= nd then
          found = redis.call('ZSCORE', KEYS[d], term .. SEP .. ms .. SEP .. id) ~= false
          if not found then
            local at = term .. SEP .. ms
            local set = grouped[at]
            if not set then
              set = {}
              for _, m in ipairs(redis.call('ZRANGE', KEYS[d], '[' .. at .. SEP .. GROUP_MARK, '(' .. at .. '\1', 'BYLEX')) do
                local _, x = splitPosting(m, #term)
                for _, gid in ipairs(groupIds(x)) do set[gid] = true end
              end
              grouped[at] = set
            end
            found = set[id] == true
          end
        end
        keep[i] = found
      end
    end
  end
end
for s, k in ipairs(statusKeys) do
  if nt + s ~= best then
    for i = 1, #ids do
      if keep[i] and redis.call('ZSCORE', k, ids[i]) == false then keep[i] = false end
    end
  end
end
local out = { #ids >= count and 1 or 0, mss[#ids] or '', ids[#ids] or '' }
for i = 1, #ids do
  if keep[i] then out[#out + 1] = ids[i] end
end
return out
