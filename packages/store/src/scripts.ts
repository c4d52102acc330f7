/**
 * Every Lua script of the store, in one registry: each atomic multi-key step is a named script,
 * registered on a connection as an ioredis command (`defineCommand`, so it runs by EVALSHA) and
 * called by that name; no store sends an anonymous EVAL.
 *
 * Names are `petrel<Verb><Noun>`: the prefix keeps them apart from BullMQ's own commands, which
 * BullMQ defines on the same connection. `numberOfKeys` is fixed where the key count is; `null`
 * marks a script whose first argument is its key count. Every key a script touches is passed in
 * KEYS (never built inside Lua), as Redis Cluster requires
 * (https://redis.io/docs/latest/develop/interact/programmability/eval-intro/), and all of them
 * hash to one slot: every call through this registry, and every MULTI or pipeline made with
 * {@link transaction} / {@link pipeline}, is checked (slots.ts) and refused with a
 * CrossSlotError otherwise.
 */
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis.js';
import { assertOneSlot, oneSlotBatch } from './slots.js';
import { CONTACT_SCRIPTS, type ContactStoreCommands } from './contacts.scripts.js';
import { CONTACT_IMPORT_SCRIPTS, type ContactImportStoreCommands } from './contact-imports.scripts.js';
import { BROADCAST_SCRIPTS, type BroadcastStoreCommands } from './broadcasts.scripts.js';
import { INBOUND_SCRIPTS, type InboundStoreCommands } from './inbound.scripts.js';
import { WEBHOOK_SCRIPTS, type WebhookStoreCommands } from './webhooks.scripts.js';
import { EMAIL_SEARCH_SCRIPTS, type EmailSearchStoreCommands } from './email-search.scripts.js';
import { COUNTED_STATUSES } from './email-stats.statuses.js';
import { AUTOMATION_SCRIPTS, type AutomationStoreCommands } from './automations.scripts.js';
import { DOMAIN_SCRIPTS, type DomainStoreCommands } from './domains.scripts.js';
import { CUSTOM_EVENT_SCRIPTS, type CustomEventStoreCommands } from './custom-events.scripts.js';
import { RATE_LIMIT_SCRIPTS, type RateLimitStoreCommands } from './rate-limit.scripts.js';
import { WATCHDOG_SCRIPTS, type WatchdogStoreCommands } from './watchdog.scripts.js';
import { INBOX_SCRIPTS, type InboxStoreCommands } from './inboxes.scripts.js';
import { EMAIL_STATUSES } from '@petrel/contracts';

/**
 * The rank from which an email is finished for the stuck-email watchdog: `sent` and every status
 * after it (the SMTP transaction is over). Below it (scheduled, queued, delivery_delayed) the
 * email sits in its team's unfinished index of its lane (`Keys.unfinishedEmails`).
 */
const FINISHED_RANK = EMAIL_STATUSES.indexOf('sent');

/** The statuses the hourly email counters count (email-stats.ts), as a Lua set. */
const COUNTED_STATUSES_LUA = `{${COUNTED_STATUSES.map((s) => `${s} = true`).join(', ')}}`;

type Arg = string | number;

export const SCRIPTS = {
  /** Contacts, segments and contact properties (contacts.scripts.ts). */
  ...CONTACT_SCRIPTS,
  /** Contact imports (contact-imports.scripts.ts). */
  ...CONTACT_IMPORT_SCRIPTS,
  /** Broadcasts: one compare-and-set per state change (broadcasts.scripts.ts). */
  ...BROADCAST_SCRIPTS,
  /** Received emails (inbound.scripts.ts). */
  ...INBOUND_SCRIPTS,
  /** Webhook endpoints and their event logs (webhooks.scripts.ts). */
  ...WEBHOOK_SCRIPTS,
  /** The email search indexes of the list page (email-search.scripts.ts). */
  ...EMAIL_SEARCH_SCRIPTS,
  /** Automations and their runs: compare-and-sets on a run's state (automations.scripts.ts). */
  ...AUTOMATION_SCRIPTS,
  /** Sending domains (domains.scripts.ts). */
  ...DOMAIN_SCRIPTS,
  /** Custom event definitions and the received-events log (custom-events.scripts.ts). */
  ...CUSTOM_EVENT_SCRIPTS,
  /** Per-team request rate and daily quota (rate-limit.scripts.ts). */
  ...RATE_LIMIT_SCRIPTS,
  /** The stuck-email watchdog (watchdog.scripts.ts). */
  ...WATCHDOG_SCRIPTS,
  /** Inboxes, their threads and messages (inboxes.scripts.ts). */
  ...INBOX_SCRIPTS,
  /**
   * KEYS[1] idempotency record. ARGV: fingerprint, owner, now(ms), lockMs, ttlMs.
   * Returns { outcome, started, status, body }:
   *  - 'proceed'   key absent (claimed; started=now) or a previous claim's lock expired
   *                (taken over; started kept, so ids derived from it stay the same)
   *  - 'mismatch'  fingerprint differs
   *  - 'in_flight' claimed by a live request
   *  - 'replay'    done: status + body returned verbatim
   */
  petrelClaimIdempotencyKey: {
    numberOfKeys: 1,
    lua: `
local h = redis.call('HMGET', KEYS[1], 'fp', 'state', 'lock_until', 'started', 'status', 'body')
if not h[1] then
  redis.call('HSET', KEYS[1], 'fp', ARGV[1], 'state', 'in_progress', 'owner', ARGV[2],
    'started', ARGV[3], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'proceed', ARGV[3]}
end
if h[1] ~= ARGV[1] then return {'mismatch', h[4]} end
if h[2] == 'done' then return {'replay', h[4], h[5], h[6]} end
if tonumber(h[3]) > tonumber(ARGV[3]) then return {'in_flight', h[4]} end
redis.call('HSET', KEYS[1], 'owner', ARGV[2], 'lock_until', tonumber(ARGV[3]) + tonumber(ARGV[4]))
return {'proceed', h[4]}
`,
  },
  /**
   * KEYS[1] idempotency record. ARGV: owner, status, body, ttlMs. Only the owner completes.
   */
  petrelCompleteIdempotencyKey: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'done', 'status', ARGV[2], 'body', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`,
  },
  /**
   * KEYS[1] idempotency record. ARGV: owner. Drops a claim whose request failed validation.
   */
  petrelReleaseIdempotencyKey: {
    numberOfKeys: 1,
    lua: `
if redis.call('HGET', KEYS[1], 'owner') == ARGV[1] and redis.call('HGET', KEYS[1], 'state') == 'in_progress' then
  return redis.call('DEL', KEYS[1])
end
return 0
`,
  },
  /**
   * Acceptance, step 1 of 3 (docs/architecture.md, "Acceptance"): the records of a request and
   * their outbox entries, in the team's slot.
   * KEYS[1] the team's email index (zset), KEYS[2] the team's outbox (zset); KEYS[3..2+N] email
   * records, then the same count of timeline keys. ARGV: count, createdMs, retentionMs,
   * sharedCount, sharedCount name/value pairs (fields every record of the request has), then per
   * email: id, eventJSON (the first event: `data.sequence` 1, and the shared fields start the
   * record's `seq` counter at 1), outbox member, fieldCount, and fieldCount name/value pairs. Fields
   * arrive flat (no JSON to decode here).
   * An email whose record exists already (an idempotent retry) is left untouched; every email of
   * the request gets its outbox entry (scored createdMs), so until step 3 removes it the relay
   * can finish what a crash interrupted. Returns the number of records created.
   * Optional KEYS[3+2N], KEYS[4+2N]: the team's unfinished indexes of the `send` and `broadcast`
   * lanes; each created email enters its lane's, scored by when its job is due (the outbox
   * member's due time, or createdMs), for the stuck-email watchdog.
   */
  petrelAcceptEmails: {
    numberOfKeys: null,
    lua: `
local n = tonumber(ARGV[1])
local ns = tonumber(ARGV[4])
local shared_from, shared_to = 5, 4 + ns * 2
local p = 5 + ns * 2
local index = {}
local outbox = {}
local unfinished = KEYS[3 + 2 * n]
local pending_s, pending_b = {}, {}
for i = 1, n do
  local rec = KEYS[2 + i]
  local tl = KEYS[2 + n + i]
  local id, ev, member, nf = ARGV[p], ARGV[p + 1], ARGV[p + 2], tonumber(ARGV[p + 3])
  local from, to = p + 4, p + 3 + nf * 2
  p = to + 1
  outbox[#outbox + 1] = ARGV[2]
  outbox[#outbox + 1] = member
  if redis.call('EXISTS', rec) == 0 then
    redis.call('HSET', rec, 'id', id, unpack(ARGV, shared_from, shared_to))
    if nf > 0 then redis.call('HSET', rec, unpack(ARGV, from, to)) end
    redis.call('PEXPIRE', rec, ARGV[3])
    redis.call('RPUSH', tl, ev)
    redis.call('PEXPIRE', tl, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
    if unfinished then
      local lane, due = string.match(member, '^([^:]+):(%d+):')
      local list = lane == 'broadcast' and pending_b or pending_s
      list[#list + 1] = due == '0' and ARGV[2] or due
      list[#list + 1] = id
    end
  end
end
if #pending_s > 0 then redis.call('ZADD', unfinished, unpack(pending_s)) end
if #pending_b > 0 then redis.call('ZADD', KEYS[4 + 2 * n], unpack(pending_b)) end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
if #outbox > 0 then redis.call('ZADD', KEYS[2], unpack(outbox)) end
return #index / 2
`,
  },
  /**
   * A broadcast's emails, one chunk of a fan-out page (BroadcastEmailsWriter): records in the
   * EmailsStore layout without html/text (the content is the broadcast's, read at send time),
   * their `email.queued` timelines and listing entries. No outbox entries: the fan-out's
   * checkpoint comes after the jobs, so a crash in between redoes the page.
   * KEYS[1] the team's email index (zset); KEYS[2..1+N] email records, then the same count of
   * timeline keys. ARGV: count, createdMs, retentionMs, contentHead, contentTail, sharedCount,
   * sharedCount name/value pairs, then per email: id, contactId, messageId, ownJson (its `to`
   * and subject), eventJSON (the first event: its `data.sequence` is 1, and the record's `seq`
   * counter starts there), contactValuesJson ('' for none: no field).
   * A record's `content` is contentHead .. ownJson .. contentTail. An existing record is left
   * alone (a redone page). Returns the number of records created. Optional KEYS[2+2N]: the team's
   * unfinished index of the broadcast lane, which each created email enters (scored createdMs).
   */
  petrelCreateBroadcastEmails: {
    numberOfKeys: null,
    lua: `
local n = tonumber(ARGV[1])
local unfinished = KEYS[2 + 2 * n]
local ns = tonumber(ARGV[6])
local shared_from, shared_to = 7, 6 + ns * 2
local p = shared_to + 1
local index = {}
for i = 1, n do
  local rec = KEYS[1 + i]
  local tl = KEYS[1 + n + i]
  local id = ARGV[p]
  if redis.call('EXISTS', rec) == 0 then
    redis.call('HSET', rec, 'id', id, 'contact_id', ARGV[p + 1], 'message_id', ARGV[p + 2],
      'content', ARGV[4] .. ARGV[p + 3] .. ARGV[5], 'seq', 1, unpack(ARGV, shared_from, shared_to))
    if ARGV[p + 5] ~= '' then redis.call('HSET', rec, 'contact_values', ARGV[p + 5]) end
    redis.call('PEXPIRE', rec, ARGV[3])
    redis.call('RPUSH', tl, ARGV[p + 4])
    redis.call('PEXPIRE', tl, ARGV[3])
    index[#index + 1] = ARGV[2]
    index[#index + 1] = id
  end
  p = p + 6
end
if #index > 0 then redis.call('ZADD', KEYS[1], unpack(index)) end
if unfinished and #index > 0 then redis.call('ZADD', unfinished, unpack(index)) end
return #index / 2
`,
  },
  /**
   * Read only. KEYS[1] a segment's members (zset: contact ids scored by creation ms).
   * ARGV: score and id of the cursor ('' and '' for the start), limit. Returns up to `limit`
   * members after the cursor in (score, id) order, flat as id, score, id, score…
   * Members of one score sort by id (Redis orders equal scores lexicographically), and an import
   * writes a whole batch with one ms, so ties are common: the cursor member's rank gives the next
   * page in one step; when it left the segment since, its score's ties after its id come first,
   * then the higher scores.
   */
  petrelSegmentMembersAfter: {
    numberOfKeys: 1,
    lua: `
local limit = tonumber(ARGV[3])
if ARGV[2] == '' then return redis.call('ZRANGE', KEYS[1], 0, limit - 1, 'WITHSCORES') end
local rank = redis.call('ZRANK', KEYS[1], ARGV[2])
if rank and tonumber(redis.call('ZSCORE', KEYS[1], ARGV[2])) == tonumber(ARGV[1]) then
  return redis.call('ZRANGE', KEYS[1], rank + 1, rank + limit, 'WITHSCORES')
end
local out = {}
local ties = redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[1], 'BYSCORE')
for _, id in ipairs(ties) do
  if #out >= limit * 2 then return out end
  if id > ARGV[2] then out[#out + 1] = id; out[#out + 1] = ARGV[1] end
end
local rest = redis.call('ZRANGE', KEYS[1], '(' .. ARGV[1], '+inf', 'BYSCORE', 'LIMIT', 0, limit - #out / 2, 'WITHSCORES')
for _, v in ipairs(rest) do out[#out + 1] = v end
return out
`,
  },
  /**
   * KEYS[1] email record, KEYS[2] its timeline, KEYS[3] the team's events stream, KEYS[4] and
   * KEYS[5] the team's unfinished indexes of the send and broadcast lanes (an email at `sent` or
   * beyond leaves them). ARGV: streamMaxLen, fieldCount, then fieldCount name/value pairs to set on the record, then per
   * event (in order): status, rank, eventJSON head (the JSON up to its `data.sequence` value).
   * Appends and publishes every event, sets the fields, and moves `status` to the highest-ranked
   * event's status if that is forward (rank comparison), so events that arrive out of order never
   * move an email backwards. Returns 1 if the status moved, 0 if not, -1 if the record is gone.
   * Dashboard (email-search.ts, email-stats.ts): KEYS[6] the team's counters of this hour, each
   * event of a counted status adding 1 to `<lane>:<status>` (the hash expires at the last ARGV,
   * a ms time); KEYS[7..18] the team's status indexes in EMAIL_STATUSES order (KEYS[7 + rank]):
   * a status move moves the email from its old status's index to its new one, in this script.
   * Each event head ends in `"sequence":` (email-event-json.ts): the script completes it with the
   * email's next sequence number and `}}`, from the record's `seq` counter (a record written
   * before the counter existed starts after its timeline's length).
   */
  petrelRecordEmailEvents: {
    numberOfKeys: 18,
    lua: `
local COUNTED_STATUSES = ${COUNTED_STATUSES_LUA}
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local nf = tonumber(ARGV[2])
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 3, 2 + nf * 2)) end
local best = tonumber(redis.call('HGET', KEYS[1], 'status_rank') or '-1')
local old_rank = best
local lane = nil
local counted = false
local status = nil
local first = 3 + nf * 2
local n = (#ARGV - first) / 3
local seq = 0
if n > 0 then
  seq = redis.call('HINCRBY', KEYS[1], 'seq', n)
  if seq == n then
    local before = redis.call('LLEN', KEYS[2])
    if before > 0 then seq = redis.call('HINCRBY', KEYS[1], 'seq', before) end
  end
  seq = seq - n
end
for i = first, #ARGV - 1, 3 do
  seq = seq + 1
  local ev = ARGV[i + 2] .. seq .. '}}'
  redis.call('RPUSH', KEYS[2], ev)
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', 'event', ev)
  if COUNTED_STATUSES[ARGV[i]] then
    lane = lane or redis.call('HGET', KEYS[1], 'lane') or 'send'
    redis.call('HINCRBY', KEYS[6], lane .. ':' .. ARGV[i], 1)
    counted = true
  end
  local rank = tonumber(ARGV[i + 1])
  if rank > best then best = rank; status = ARGV[i] end
end
if best >= ${FINISHED_RANK} then
  redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'id'))
  redis.call('ZREM', KEYS[5], redis.call('HGET', KEYS[1], 'id'))
end
if counted then redis.call('PEXPIREAT', KEYS[6], ARGV[#ARGV]) end
if status then
  redis.call('HSET', KEYS[1], 'status', status, 'status_rank', best)
  local id = redis.call('HGET', KEYS[1], 'id')
  if old_rank >= 0 then redis.call('ZREM', KEYS[7 + old_rank], id) end
  redis.call('ZADD', KEYS[7 + best], redis.call('HGET', KEYS[1], 'created_ms') or 0, id)
  return 1
end
return 0
`,
  },
  /**
   * KEYS[1] email record, KEYS[2] timeline, KEYS[3], KEYS[4] the team's unfinished indexes of the
   * send and broadcast lanes (a canceled email leaves them). ARGV: eventJSON head (completed with the next sequence
   * number as petrelRecordEmailEvents does), canceledRank.
   * KEYS[5] and KEYS[6]: the team's `scheduled` and `canceled` status indexes (email-search.ts),
   * between which a cancel moves the email.
   * Cancels only an email that is still `scheduled`. Returns 1 if canceled, 0 if not scheduled,
   * -1 if missing.
   */
  petrelCancelScheduledEmail: {
    numberOfKeys: 6,
    lua: `
local st = redis.call('HGET', KEYS[1], 'status')
if not st then return -1 end
if st ~= 'scheduled' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'canceled', 'status_rank', ARGV[2])
redis.call('ZREM', KEYS[5], redis.call('HGET', KEYS[1], 'id'))
redis.call('ZADD', KEYS[6], redis.call('HGET', KEYS[1], 'created_ms') or 0, redis.call('HGET', KEYS[1], 'id'))
redis.call('ZREM', KEYS[3], redis.call('HGET', KEYS[1], 'id'))
redis.call('ZREM', KEYS[4], redis.call('HGET', KEYS[1], 'id'))
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if seq == 1 then seq = redis.call('HINCRBY', KEYS[1], 'seq', redis.call('LLEN', KEYS[2])) end
redis.call('RPUSH', KEYS[2], ARGV[1] .. seq .. '}}')
return 1
`,
  },
  /**
   * KEYS[1] suppression index, [2] contact index, [3] unsubscribed mailboxes, and for a topic
   * email [4] the topic record, [5] its subscriptions. ARGV: the recipients' mailboxes.
   * Read-only: per mailbox, in order, `suppressed` (0/1), the contact id or false, `unsubscribed`
   * (0/1), the topic choice or false; then the topic's default (false without a topic or when it
   * is gone). One command instead of a pipeline of five: the send path pays it on every email.
   */
  petrelReadRecipientStates: {
    numberOfKeys: null,
    lua: `
local out = {}
local topic = #KEYS == 5
for i = 1, #ARGV do
  local m = ARGV[i]
  out[#out + 1] = redis.call('HEXISTS', KEYS[1], m)
  out[#out + 1] = redis.call('HGET', KEYS[2], m)
  out[#out + 1] = redis.call('SISMEMBER', KEYS[3], m)
  out[#out + 1] = topic and redis.call('HGET', KEYS[5], m) or false
end
out[#out + 1] = topic and redis.call('HGET', KEYS[4], 'default_subscription') or false
return out
`,
  },
  /**
   * KEYS[1] a record (hash). ARGV: name/value pairs. Sets them only while the record exists, so a
   * write racing a delete or an expiry never leaves a stray partial record. Returns 1, or 0 when
   * the record is gone.
   */
  petrelSetFieldsIfExists: {
    numberOfKeys: 1,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
`,
  },
  /**
   * KEYS[1] template, KEYS[2] its first version, KEYS[3] listing zset, KEYS[4] alias index.
   * ARGV: id, alias ('' = none), createdMs, n template field-value args, then the template
   * pairs, then the version pairs. Returns 1, or 0 when the alias is taken.
   */
  petrelCreateTemplate: {
    numberOfKeys: 4,
    lua: `
local alias = ARGV[2]
if alias ~= '' then
  if redis.call('HSETNX', KEYS[4], alias, ARGV[1]) == 0 then return 0 end
end
local nt = tonumber(ARGV[4])
redis.call('HSET', KEYS[1], unpack(ARGV, 5, 4 + nt))
redis.call('HSET', KEYS[2], unpack(ARGV, 5 + nt, #ARGV))
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[1])
return 1
`,
  },
  /**
   * KEYS[1] template, KEYS[2] alias index, KEYS[3] current version, KEYS[4] candidate new version.
   * ARGV: id, expected rev, alias mode ('keep' | 'set'), alias ('' = none), new version id,
   * n template pairs args, n version pairs args (0 = content unchanged), template pairs, version pairs.
   * Returns 'missing' | 'retry' | 'alias_taken' | 'new' | 'in_place' | 'unchanged'.
   */
  petrelUpdateTemplate: {
    numberOfKeys: 4,
    lua: `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HGET', KEYS[1], 'rev') ~= ARGV[2] then return 'retry' end
local id = ARGV[1]
if ARGV[3] == 'set' then
  local old = redis.call('HGET', KEYS[1], 'alias') or ''
  local new = ARGV[4]
  if new ~= old then
    if new ~= '' then
      local owner = redis.call('HGET', KEYS[2], new)
      if owner and owner ~= id then return 'alias_taken' end
      redis.call('HSET', KEYS[2], new, id)
    end
    if old ~= '' and redis.call('HGET', KEYS[2], old) == id then redis.call('HDEL', KEYS[2], old) end
    redis.call('HSET', KEYS[1], 'alias', new)
  end
end
local nt = tonumber(ARGV[6])
local nv = tonumber(ARGV[7])
local result = 'unchanged'
if nv > 0 then
  local cur = redis.call('HGET', KEYS[1], 'current_version_id')
  local pub = redis.call('HGET', KEYS[1], 'published_version_id') or ''
  if cur == pub then
    redis.call('HSET', KEYS[4], 'id', ARGV[5], unpack(ARGV, 8 + nt, 7 + nt + nv))
    local versions = redis.call('HGET', KEYS[1], 'versions') or ''
    redis.call('HSET', KEYS[1], 'current_version_id', ARGV[5], 'versions', versions .. ' ' .. ARGV[5])
    result = 'new'
  else
    redis.call('DEL', KEYS[3])
    redis.call('HSET', KEYS[3], 'id', cur, unpack(ARGV, 8 + nt, 7 + nt + nv))
    result = 'in_place'
  end
end
if nt > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 8, 7 + nt)) end
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return result
`,
  },
  /**
   * KEYS[1] template. ARGV: expected current version id, now (ISO).
   * Returns 1, 0 when the current version changed meanwhile, -1 when the template is gone.
   */
  petrelPublishTemplate: {
    numberOfKeys: 1,
    lua: `
local cur = redis.call('HGET', KEYS[1], 'current_version_id')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'published_version_id', cur, 'published_at', ARGV[2], 'updated_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'rev', 1)
return 1
`,
  },
  /**
   * KEYS[1] template, KEYS[2] alias index, KEYS[3] listing zset, KEYS[4..] its version keys.
   * ARGV: id, expected rev, versionTtlMs. Returns 1, 0 to retry (rev changed), -1 when gone.
   */
  petrelDeleteTemplate: {
    numberOfKeys: null,
    lua: `
local h = redis.call('HMGET', KEYS[1], 'rev', 'alias')
if not h[1] then return -1 end
if h[1] ~= ARGV[2] then return 0 end
local alias = h[2] or ''
if alias ~= '' and redis.call('HGET', KEYS[2], alias) == ARGV[1] then redis.call('HDEL', KEYS[2], alias) end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
for i = 4, #KEYS do redis.call('PEXPIRE', KEYS[i], ARGV[3]) end
return 1
`,
  },
  /**
   * KEYS[1] topic, KEYS[2] the team's topic listing (zset), KEYS[3] the team's events stream.
   * ARGV: id, createdMs, streamMaxLen, stream field, topic.created event JSON, then the topic's
   * field/value pairs. Returns 1.
   */
  petrelCreateTopic: {
    numberOfKeys: 3,
    lua: `
redis.call('HSET', KEYS[1], unpack(ARGV, 6, #ARGV))
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
`,
  },
  /**
   * KEYS[1] topic, KEYS[2] events stream. ARGV: expected updated_at, streamMaxLen, stream field,
   * topic.updated event JSON, n (field/value args to set), the n args, then fields to delete.
   * Writes only if `updated_at` is still the one the caller read (it moves forward on every
   * write, so it versions the record). Returns 1, 0 to retry, -1 when the topic is gone.
   */
  petrelUpdateTopic: {
    numberOfKeys: 2,
    lua: `
local cur = redis.call('HGET', KEYS[1], 'updated_at')
if not cur then return -1 end
if cur ~= ARGV[1] then return 0 end
local ns = tonumber(ARGV[5])
if ns > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, 6, 5 + ns)) end
if #ARGV > 5 + ns then redis.call('HDEL', KEYS[1], unpack(ARGV, 6 + ns, #ARGV)) end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', ARGV[3], ARGV[4])
return 1
`,
  },
  /**
   * KEYS[1] topic, KEYS[2] topic listing, KEYS[3] the topic's subscriptions hash, KEYS[4] events
   * stream. ARGV: id, expected updated_at, streamMaxLen, stream field, topic.deleted event JSON.
   * Returns 1, 0 to retry (changed since read), -1 when the topic is gone.
   */
  petrelDeleteTopic: {
    numberOfKeys: 4,
    lua: `
local cur = redis.call('HGET', KEYS[1], 'updated_at')
if not cur then return -1 end
if cur ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[1], KEYS[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[3], '*', ARGV[4], ARGV[5])
return 1
`,
  },
  /**
   * KEYS[1] mailbox → id hash, KEYS[2] suppression listing (zset), KEYS[3] the listing of this
   * origin (zset), KEYS[4] events stream, KEYS[5..4+n] a record key per address (for a new id).
   * ARGV: streamMaxLen, stream field, createdMs, created_at, origin, source_id ('' = none), then
   * per address: mailbox, new id, email, suppression.added event JSON.
   * An address whose mailbox is listed (before, or earlier in this call) keeps its entry.
   * Returns per address { id, 1 if created else 0 }.
   */
  petrelAddSuppressions: {
    numberOfKeys: null,
    lua: `
local out = {}
local p = 7
for i = 5, #KEYS do
  local mailbox, id, email, ev = ARGV[p], ARGV[p + 1], ARGV[p + 2], ARGV[p + 3]
  p = p + 4
  local existing = redis.call('HGET', KEYS[1], mailbox)
  if existing then
    out[#out + 1] = {existing, 0}
  else
    redis.call('HSET', KEYS[i], 'id', id, 'email', email, 'origin', ARGV[5], 'created_at', ARGV[4])
    if ARGV[6] ~= '' then redis.call('HSET', KEYS[i], 'source_id', ARGV[6]) end
    redis.call('HSET', KEYS[1], mailbox, id)
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    redis.call('ZADD', KEYS[3], ARGV[3], id)
    redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ev)
    out[#out + 1] = {id, 1}
  end
end
return out
`,
  },
  /**
   * KEYS[1] mailbox → id hash, KEYS[2] suppression listing, KEYS[3] events stream, then per
   * entry its record and its origin's listing. ARGV: streamMaxLen, stream field, then per entry:
   * id, mailbox, suppression.removed event JSON. Returns per entry 1 if removed, 0 if gone.
   */
  petrelRemoveSuppressions: {
    numberOfKeys: null,
    lua: `
local out = {}
local p = 3
for i = 4, #KEYS, 2 do
  local id, mailbox, ev = ARGV[p], ARGV[p + 1], ARGV[p + 2]
  p = p + 3
  if redis.call('DEL', KEYS[i]) == 1 then
    if redis.call('HGET', KEYS[1], mailbox) == id then redis.call('HDEL', KEYS[1], mailbox) end
    redis.call('ZREM', KEYS[2], id)
    redis.call('ZREM', KEYS[i + 1], id)
    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[1], '*', ARGV[2], ev)
    out[#out + 1] = 1
  else
    out[#out + 1] = 0
  end
end
return out
`,
  },
} as const satisfies Record<string, { numberOfKeys: number | null; lua: string }>;

type ScriptName = keyof typeof SCRIPTS;

/** The scripts as commands of a connection, with their replies. */
export interface StoreCommands
  extends
    ContactStoreCommands,
    ContactImportStoreCommands,
    BroadcastStoreCommands,
    WebhookStoreCommands,
    EmailSearchStoreCommands,
    AutomationStoreCommands,
    DomainStoreCommands,
    CustomEventStoreCommands,
    InboundStoreCommands,
    RateLimitStoreCommands,
    WatchdogStoreCommands,
    InboxStoreCommands {
  petrelClaimIdempotencyKey(key: string, ...argv: Arg[]): Promise<string[]>;
  petrelCompleteIdempotencyKey(key: string, ...argv: Arg[]): Promise<number>;
  petrelReleaseIdempotencyKey(key: string, owner: string): Promise<number>;
  petrelAcceptEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelRecordEmailEvents(
    record: string,
    timeline: string,
    stream: string,
    unfinishedSend: string,
    unfinishedBroadcast: string,
    ...argv: Arg[]
  ): Promise<number>;
  petrelCreateBroadcastEmails(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelSegmentMembersAfter(members: string, score: Arg, id: string, limit: number): Promise<string[]>;
  petrelCancelScheduledEmail(
    record: string,
    timeline: string,
    unfinishedSend: string,
    unfinishedBroadcast: string,
    scheduledIndex: string,
    canceledIndex: string,
    eventJson: string,
    rank: number,
  ): Promise<number>;
  petrelSetFieldsIfExists(key: string, ...pairs: Arg[]): Promise<number>;
  petrelReadRecipientStates(
    numberOfKeys: number,
    ...keysThenMailboxes: string[]
  ): Promise<(number | string | null)[]>;
  petrelCreateTemplate(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateTemplate(...keysAndArgv: Arg[]): Promise<string>;
  petrelPublishTemplate(key: string, ...argv: Arg[]): Promise<number>;
  petrelDeleteTemplate(numKeys: number, ...keysAndArgv: Arg[]): Promise<number>;
  petrelCreateTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelUpdateTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelDeleteTopic(...keysAndArgv: Arg[]): Promise<number>;
  petrelAddSuppressions(numKeys: number, ...keysAndArgv: Arg[]): Promise<[string, number][]>;
  petrelRemoveSuppressions(numKeys: number, ...keysAndArgv: Arg[]): Promise<number[]>;
}

/** The same commands queued on a transaction (their replies come with `exec()`). */
export type QueuedStoreCommands = {
  [K in ScriptName]: (...args: Parameters<StoreCommands[K]>) => ChainableCommander;
};

const defined = new WeakSet<RedisClient>();

/** The KEYS of a call to the store's script `name` with `args`, or undefined for any other command. */
function scriptKeys(name: string, args: unknown[]): string[] | undefined {
  const script = (SCRIPTS as Record<string, { numberOfKeys: number | null }>)[name];
  if (!script) return undefined;
  const n = script.numberOfKeys;
  return (n === null ? args.slice(1, 1 + Number(args[0])) : args.slice(0, n)).map(String);
}

/**
 * Register every script on `redis` (once per connection) and return it typed with the commands.
 * Each command checks that its KEYS share one hash slot before it is sent (the registry's call
 * path: no script reaches Redis unchecked). Batches go through {@link transaction} or
 * {@link pipeline}, which check their queued scripts the same way.
 */
export function defineScripts(redis: RedisClient): RedisClient & StoreCommands {
  if (!defined.has(redis)) {
    const commands = redis as unknown as Record<string, (...args: unknown[]) => unknown>;
    for (const [name, s] of Object.entries(SCRIPTS)) {
      redis.defineCommand(name, s.numberOfKeys === null ? { lua: s.lua } : s);
      const call = commands[name]!;
      commands[name] = function checkedScript(this: unknown, ...args: unknown[]) {
        try {
          assertOneSlot(name, scriptKeys(name, args)!);
        } catch (err) {
          return Promise.reject(err); // as Redis's own refusal would arrive
        }
        return call.apply(this, args);
      };
    }
    defined.add(redis);
  }
  return redis as RedisClient & StoreCommands;
}

/**
 * A MULTI on `redis` (from {@link defineScripts}, so the store's scripts can be queued on it)
 * whose commands must all use one hash slot: the one way the store opens a transaction. `what`
 * names it in the CrossSlotError a command of another slot raises.
 */
export function transaction(redis: RedisClient, what: string): QueuedStoreCommands & ChainableCommander {
  return oneSlotBatch(what, redis.multi(), scriptKeys) as QueuedStoreCommands & ChainableCommander;
}

/**
 * A pipeline under the same rule: a Redis Cluster client sends one pipeline to one node, which
 * only the keys of one slot are sure to share.
 */
export function pipeline(redis: RedisClient, what: string): ChainableCommander {
  return oneSlotBatch(what, redis.pipeline(), scriptKeys);
}

/** Execute a transaction; throws when Redis aborted it or the first error of a failed command. */
export async function execAll(multi: ChainableCommander): Promise<unknown[]> {
  const results = await multi.exec();
  if (!results) throw new Error('Redis transaction aborted');
  const failed = results.find(([err]) => err);
  if (failed) throw failed[0];
  return results.map(([, value]) => value);
}
