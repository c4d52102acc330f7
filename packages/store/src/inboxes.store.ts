/**
 * Inboxes, their labels, threads and messages, all in the team's slot (keys.ts: `inbox:<id>`
 * and its parts):
 *
 * | part | type | holds |
 * |---|---|---|
 * | `threads` | zset | thread ids by their newest message (ms): the listing |
 * | `folder:<f>` | zset | the same, per folder (a one-folder list walks only its own) |
 * | `unread` | zset | the unread threads, by their newest message (the inbox's `unread`) |
 * | `label:<l>` | zset | the threads carrying label `l`, by their newest message |
 * | `thread:<t>` | hash | the thread (`rev` versions it: every write is a compare-and-set), its assignee and `activity` (JSON list) |
 * | `thread:<t>:emails` | zset | its message ids by time |
 * | `message:<m>` | hash | a message's head (bodies stay in the received / sent email) |
 * | `message-ids` | hash | RFC 5322 Message-ID → thread id (first writer wins) |
 * | `subjects` | hash | subject key (threading.ts) → `<threadId> <lastMs>` |
 * | `labels` | hash | label id → label JSON |
 * | `term:<t>` | zset | message ids by time per search term (`w:<word>`, `from:<mailbox>`…) |
 *
 * Every thread write (a new message, a move, read, labels) is one script with its `inbox.*`
 * events (inboxes.scripts.ts), conditional on the `rev` read before it, retried on a race.
 * Index entries that outlive what they name (a deleted thread's subject key) are checked on
 * read and ignored.
 */
import {
  INBOX_MESSAGE_FOLDERS,
  type InboxFolder,
  type InboxLabelRecord,
  type InboxMessageRecord,
  type InboxRecord,
  type InboxThreadActivity,
  type InboxThreadRecord,
  type TeamEvent,
} from '@petrel/contracts';
import {
  UUID_RE,
  inboxChangedData,
  inboxDeletedData,
  threadAssignedData,
  threadEmailData,
  threadFolderData,
  threadLabels,
  threadLabelsData,
  threadSummary,
  threadUnassignedData,
  type InboxEventSource,
  type InboxPatch,
  type InboxesPort,
  type NewInboxMessage,
  type Page,
  type PageRequest,
  type ThreadLookups,
  type ThreadChange,
  type ThreadQuery,
  type ThreadSearch,
  idKey,
} from '@petrel/core';
import { InboxDraftsStore } from './inboxes.drafts.store.js';
import { membersOfAll, walkIndex } from './email-search.js';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN } from './keys.js';
import { pageIndex } from './page-index.js';
import { pageHashes, readHashes } from './hash-records.js';
import { execAll, pipeline, transaction } from './scripts.js';
import { teamEventJson } from './team-event-json.js';
import { TeamStore } from './team-store.js';

const MAX_WRITE_ATTEMPTS = 8;
/** Thread ids read per step while a filtered list walks its listing. */
const WALK_BATCH = 200;

const THREAD_FIELDS = [
  'id', 'subject', 'from', 'to', 'cc', 'bcc', 'label_ids', 'email_count', 'has_attachment',
  'drafts', 'read', 'folder', 'received_at', 'created_at', 'assignee', 'rev',
] as const; // prettier-ignore
/** Entries a thread's activity keeps (the newest): enough for any conversation's history of changes. */
const MAX_ACTIVITY = 200;

type StoredThread = InboxThreadRecord & { rev: string };

export class InboxesStore extends TeamStore implements InboxesPort {
  /** The keys of an inbox's create and delete scripts: its record, the listing, the addresses, the events. */
  private inboxKeys(teamId: string, inboxId: string): [string, string, string, string] {
    const k = this.keys;
    return [k.inbox(teamId, inboxId), k.inboxes(teamId), k.inboxAddresses(teamId), k.events(teamId)];
  }

  private part(teamId: string, inboxId: string, part: string): string {
    return this.keys.inboxPart(teamId, inboxId, part);
  }

  private threadKeys(teamId: string, inboxId: string, threadId: string): string[] {
    return [
      this.part(teamId, inboxId, `thread:${threadId}`),
      this.part(teamId, inboxId, 'threads'),
      ...INBOX_MESSAGE_FOLDERS.map((f) => this.part(teamId, inboxId, `folder:${f}`)),
      this.part(teamId, inboxId, 'unread'),
      this.keys.events(teamId),
    ];
  }

  // ------------------------------------------------------------------------------------------
  // Inboxes

  async create(teamId: string, inbox: InboxRecord): Promise<'created' | 'taken'> {
    const nowMs = Date.parse(inbox.created_at);
    // the global route of an inbox at the team's own domain first (see inboxRoute): an entry
    // whose inbox was never written is ignored on read, a missing one would lose its mail
    if (inbox.domain_id !== '') await this.redis.hset(this.keys.inboxRoutes(), inbox.email_address, teamId);
    const res = await this.redis.petrelCreateInbox(
      ...this.inboxKeys(teamId, inbox.id),
      inbox.id,
      nowMs,
      inbox.email_address,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      this.eventJson('inbox.created', teamId, inboxChangedData('api', inbox, NO_COUNTS)),
      ...inboxPairs(inbox),
    );
    return res === 1 ? 'created' : 'taken';
  }

  async find(teamId: string, idOrEmail: string): Promise<InboxRecord | null> {
    let id = idOrEmail.toLowerCase();
    if (!UUID_RE.test(id)) {
      if (!id.includes('@')) return null;
      const found = await this.redis.hget(this.keys.inboxAddresses(teamId), id);
      if (!found) return null;
      id = found;
    }
    const h = await this.redis.hgetall(this.keys.inbox(teamId, id));
    return h.id ? toInbox(h) : null;
  }

  async atAddresses(teamId: string, mailboxes: readonly string[]): Promise<InboxRecord[]> {
    if (mailboxes.length === 0) return [];
    const ids = await this.redis.hmget(this.keys.inboxAddresses(teamId), ...mailboxes);
    const found = [...new Set(ids.filter((x): x is string => !!x))];
    return (await Promise.all(found.map((id) => this.find(teamId, id)))).filter((x): x is InboxRecord => !!x);
  }

  /**
   * The team with an inbox at `mailbox` on one of its own domains, and that domain's id, read
   * from the global route index and checked against the team's own address index; null when
   * none (the inbound server's inbox rule, core's InboundRouter).
   */
  async inboxRoute(mailbox: string): Promise<{ teamId: string; domainId: string } | null> {
    const teamId = await this.redis.hget(this.keys.inboxRoutes(), mailbox);
    if (!teamId) return null;
    const inboxId = await this.redis.hget(this.keys.inboxAddresses(teamId), mailbox);
    if (!inboxId) return null;
    const domainId = await this.redis.hget(this.keys.inbox(teamId, inboxId), 'domain_id');
    return domainId ? { teamId, domainId } : null;
  }

  async list(teamId: string, page: PageRequest): Promise<Page<InboxRecord> | null> {
    const keyOf = (id: string) => this.keys.inbox(teamId, id);
    return pageHashes(this.redis, 'InboxesStore.list', this.keys.inboxes(teamId), page, keyOf, toInbox);
  }

  async update(
    teamId: string,
    inboxId: string,
    patch: InboxPatch,
    source: InboxEventSource,
  ): Promise<InboxRecord | null> {
    const current = await this.find(teamId, inboxId);
    if (!current) return null;
    const nowMs = Math.max(this.clock.now(), Date.parse(current.updated_at) + 1);
    const next: InboxRecord = { ...current, ...patch, updated_at: new Date(nowMs).toISOString() };
    const agentOnly = Object.keys(patch).every((k) => k.startsWith('agent_'));
    const event = agentOnly
      ? ''
      : this.eventJson(
          'inbox.updated',
          teamId,
          inboxChangedData(source, next, await this.counts(teamId, next.id)),
        );
    const pairs = inboxPairs(next);
    const cleared = (['name', 'from_name', 'agent_instructions', 'agent_tone'] as const).filter(
      (k) => next[k] === null,
    );
    const res = await this.redis.petrelUpdateInboxRecord(
      this.keys.inbox(teamId, current.id),
      this.keys.events(teamId),
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      event,
      ...pairs,
      '--',
      ...cleared,
    );
    return res === 1 ? next : null;
  }

  async remove(teamId: string, inboxId: string): Promise<InboxRecord | null> {
    const current = await this.find(teamId, inboxId);
    if (!current) return null;
    const res = await this.redis.petrelDeleteInbox(
      ...this.inboxKeys(teamId, current.id),
      current.id,
      current.email_address,
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      this.eventJson('inbox.deleted', teamId, inboxDeletedData('api', current.id)),
    );
    if (res !== 1) return null;
    if ((await this.redis.hget(this.keys.inboxRoutes(), current.email_address)) === teamId)
      await this.redis.hdel(this.keys.inboxRoutes(), current.email_address);
    // the inbox is gone for every reader now; its threads go after, a batch at a time
    for (;;) {
      const ids = await this.redis.zrange(this.part(teamId, current.id, 'threads'), '0', '99');
      if (ids.length === 0) break;
      for (const id of ids) await this.deleteThread(teamId, current.id, id);
    }
    await new InboxDraftsStore(this.redis, this.keys, this.clock).removeAll(teamId, current.id);
    await this.redis.del(
      ...['labels', 'message-ids', 'subjects', 'unread', 'drafts', 'last-received'].map((p) =>
        this.part(teamId, current.id, p),
      ),
    );
    return current;
  }

  async counts(
    teamId: string,
    inboxId: string,
  ): Promise<{ unread: number; drafts: number; lastReceived: string | null }> {
    const pipe = pipeline(this.redis, 'InboxesStore.counts');
    pipe.zcard(this.part(teamId, inboxId, 'unread'));
    pipe.zcard(this.part(teamId, inboxId, 'drafts'));
    pipe.get(this.part(teamId, inboxId, 'last-received'));
    const [[, unread], [, drafts], [, last]] = (await pipe.exec()) as [unknown, unknown][] as [
      [unknown, number],
      [unknown, number],
      [unknown, string | null],
    ];
    return { unread, drafts, lastReceived: last ?? null };
  }

  // ------------------------------------------------------------------------------------------
  // Labels

  async labels(teamId: string, inboxId: string): Promise<InboxLabelRecord[]> {
    const all = await this.redis.hvals(this.part(teamId, inboxId, 'labels'));
    return all
      .map((j) => JSON.parse(j) as InboxLabelRecord)
      .sort((a, b) =>
        a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1,
      );
  }

  async createLabel(teamId: string, inboxId: string, label: InboxLabelRecord): Promise<void> {
    await this.redis.hset(this.part(teamId, inboxId, 'labels'), label.id, JSON.stringify(label));
  }

  async updateLabel(teamId: string, inboxId: string, label: InboxLabelRecord): Promise<boolean> {
    const key = this.part(teamId, inboxId, 'labels');
    if ((await this.redis.hexists(key, label.id)) !== 1) return false;
    await this.redis.hset(key, label.id, JSON.stringify(label));
    return true;
  }

  async removeLabel(teamId: string, inboxId: string, labelId: string): Promise<boolean> {
    // Threads keep the id until their next label write; readers skip ids of deleted labels.
    const multi = transaction(this.redis, 'InboxesStore.removeLabel');
    multi.hdel(this.part(teamId, inboxId, 'labels'), labelId);
    multi.del(this.part(teamId, inboxId, `label:${labelId}`));
    const [removed] = await execAll(multi);
    return removed === 1;
  }

  // ------------------------------------------------------------------------------------------
  // Threads

  async thread(teamId: string, inboxId: string, threadId: string): Promise<InboxThreadRecord | null> {
    const t = await this.storedThread(teamId, inboxId, threadId);
    return t ? withoutRev(t) : null;
  }

  private async storedThread(
    teamId: string,
    inboxId: string,
    threadId: string,
  ): Promise<StoredThread | null> {
    if (!UUID_RE.test(threadId)) return null;
    const v = await this.redis.hmget(
      this.part(teamId, inboxId, `thread:${idKey(threadId)}`),
      ...THREAD_FIELDS,
    );
    return v[0] ? toThread(v) : null;
  }

  private async readThreads(
    teamId: string,
    inboxId: string,
    ids: readonly string[],
  ): Promise<StoredThread[]> {
    if (ids.length === 0) return [];
    const pipe = pipeline(this.redis, 'InboxesStore.readThreads');
    for (const id of ids) pipe.hmget(this.part(teamId, inboxId, `thread:${id}`), ...THREAD_FIELDS);
    const rows = (await pipe.exec()) ?? [];
    return rows
      .map(([, v]) => v as (string | null)[])
      .filter((v) => v[0])
      .map(toThread);
  }

  async threads(teamId: string, inboxId: string, q: ThreadQuery): Promise<Page<InboxThreadRecord> | null> {
    const listing =
      q.folders?.length === 1
        ? this.part(teamId, inboxId, `folder:${q.folders[0]}`)
        : this.part(teamId, inboxId, 'threads');
    const keep = (t: InboxThreadRecord) =>
      (!q.folders || q.folders.includes(t.folder)) &&
      (q.read === undefined || t.read === q.read) &&
      (!q.labels || q.labels.every((l) => t.label_ids.includes(l)));
    const unfiltered = !q.labels && q.read === undefined && (!q.folders || q.folders.length <= 1);
    if (unfiltered) {
      const found = await pageIndex(this.redis, listing, q);
      if (!found) return null;
      return {
        items: (await this.readThreads(teamId, inboxId, found.ids)).map(withoutRev),
        hasMore: found.hasMore,
      };
    }
    // the listings the filters name (the folder's or the inbox's, each label's, the unread one)
    // all score a thread by its newest message: the smallest drives, the others are checked per
    // candidate, and only the candidates in all of them are read
    const indexes = [
      listing,
      ...(q.labels ?? []).map((l) => this.part(teamId, inboxId, `label:${l}`)),
      ...(q.read === false ? [this.part(teamId, inboxId, 'unread')] : []),
    ];
    return this.walkIndexes(teamId, inboxId, indexes, q, keep);
  }

  /**
   * A filtered page: walks the smallest of `indexes` from the cursor (placed by its score in the
   * inbox's listing), keeps the ids present in the others (ZMSCORE), then the threads `keep`
   * keeps; stops at the page's end, so a page costs the candidates of the most selective
   * filter up to it, not the inbox's size.
   */
  private async walkIndexes(
    teamId: string,
    inboxId: string,
    indexes: readonly string[],
    q: PageRequest,
    keep: (t: InboxThreadRecord) => boolean,
  ): Promise<Page<InboxThreadRecord> | null> {
    const cursorId = (q.after ?? q.before)?.toLowerCase();
    const batch = pipeline(this.redis, 'InboxesStore.walkIndexes');
    for (const k of indexes) batch.zcard(k);
    if (cursorId) batch.zscore(this.part(teamId, inboxId, 'threads'), cursorId);
    const replies = ((await batch.exec()) ?? []).map(([, v]) => v);
    let cursor: { score: string; id: string } | null = null;
    if (cursorId) {
      const score = replies[indexes.length] as string | null;
      if (score === null) return null;
      cursor = { score, id: cursorId };
    }
    const order = indexes.map((k, i) => ({ k, n: Number(replies[i]) })).sort((a, b) => a.n - b.n);
    if (order[0]!.n === 0) return { items: [], hasMore: false };
    const driver = order[0]!.k;
    const others = order.slice(1).map((o) => o.k);
    const desc = !q.before;
    const want = q.limit + 1;
    const found = await walkIndex(
      this.redis,
      { driver, others, desc, cursor, chunk: want, maxChunk: WALK_BATCH, bound: '-inf', want },
      async (ids) => (await this.readThreads(teamId, inboxId, ids)).map(withoutRev).filter(keep),
    );
    // towards newer (`before`): the `limit` nearest the cursor, shown newest first
    const items = found.slice(0, q.limit);
    return { items: desc ? items : items.reverse(), hasMore: found.length > q.limit };
  }

  /**
   * A filtered page: walks `listing` from the cursor (newest first for `after`, towards the
   * newest for `before`), `WALK_BATCH` ids at a time, keeping what `pick` keeps.
   */
  private async walk<T extends { id: string }>(
    listing: string,
    q: PageRequest,
    pick: (ids: string[]) => Promise<T[]>,
  ): Promise<Page<T> | null> {
    const cursor = q.after ?? q.before;
    let rank = -1;
    if (cursor) {
      const r = await this.redis.zrevrank(listing, cursor.toLowerCase());
      if (r === null) return null;
      rank = r;
    }
    const out: T[] = [];
    if (q.before) {
      let hi = rank - 1;
      while (hi >= 0 && out.length <= q.limit) {
        const lo = Math.max(0, hi - WALK_BATCH + 1);
        const ids = await this.redis.zrevrange(listing, lo, hi);
        out.unshift(...(await pick(ids)));
        hi = lo - 1;
      }
      return { items: out.slice(-q.limit), hasMore: out.length > q.limit };
    }
    let lo = rank + 1;
    for (;;) {
      const ids = await this.redis.zrevrange(listing, lo, lo + WALK_BATCH - 1);
      if (ids.length === 0) break;
      out.push(...(await pick(ids)));
      if (out.length > q.limit) break;
      lo += WALK_BATCH;
    }
    return { items: out.slice(0, q.limit), hasMore: out.length > q.limit };
  }

  async search(
    teamId: string,
    inboxId: string,
    q: ThreadSearch,
  ): Promise<Page<InboxThreadRecord & { matched_email_id: string | null }> | null> {
    const terms = [
      ...q.words.map((w) => `w:${w}`),
      ...q.from.map((a) => `from:${a}`),
      ...q.to.map((a) => `to:${a}`),
      ...q.cc.map((a) => `cc:${a}`),
      ...q.bcc.map((a) => `bcc:${a}`),
      ...(q.hasAttachment ? ['att:1'] : []),
    ];
    const threadFilter = (t: InboxThreadRecord) =>
      (!q.folders || q.folders.includes(t.folder)) &&
      (q.read === undefined || t.read === q.read) &&
      (!q.labels || q.labels.every((l) => t.label_ids.includes(l))) &&
      (q.hasAttachment !== false || !t.has_attachment);
    if (terms.length === 0) {
      // no message criteria: the threads whose newest message lies in the date range
      const page = await this.walk(this.part(teamId, inboxId, 'threads'), q, async (ids) =>
        (await this.readThreads(teamId, inboxId, ids))
          .map(withoutRev)
          .filter((t) => threadFilter(t) && inRange(Date.parse(t.received_at), q)),
      );
      return page && { ...page, items: page.items.map((t) => ({ ...t, matched_email_id: null })) };
    }
    // The messages that carry every term, newest first, each thread listed once at its newest
    // match. The smallest term index drives (the others checked per candidate with ZMSCORE) and
    // the walk stops at the page's end, so a page costs the candidates up to it, not the inbox's
    // size. A message is its thread's place when no newer message of that thread matches: no
    // state is carried between pages, and `after` resumes at the cursor thread's newest match.
    const termKeys = [...new Set(terms)].map((t) => this.part(teamId, inboxId, `term:${t}`));
    const sizes = pipeline(this.redis, 'InboxesStore.search.sizes');
    for (const k of termKeys) sizes.zcard(k);
    const counted = ((await sizes.exec()) ?? []).map(([, n], i) => ({ k: termKeys[i]!, n: Number(n) }));
    counted.sort((a, b) => a.n - b.n);
    const driver = counted[0]!.k;
    const others = counted.slice(1).map((c) => c.k);
    const range = { max: q.endMs ?? Infinity, min: q.startMs ?? -Infinity };
    const cursorThread = (q.after ?? q.before)?.toLowerCase();
    // from the range's newest end ('~' sorts after every id: the ties at endMs are included)
    let cursor = q.endMs !== undefined ? { score: String(q.endMs), id: '~' } : null;
    if (cursorThread) {
      const at = await this.newestMatch(teamId, inboxId, cursorThread, termKeys, range);
      if (!at) return null;
      if (q.after) cursor = { score: String(at.ms), id: at.id };
    }
    const want = q.limit + 1;
    const chunk = want * 2;
    const out: (InboxThreadRecord & { matched_email_id: string | null })[] = [];
    const listed = new Set<string>();
    let reached = false;
    walk: for (;;) {
      const flat = await this.redis.petrelEmailSearchRange(
        driver,
        'desc',
        cursor?.score ?? '',
        cursor?.id ?? '',
        chunk,
        Number.isFinite(range.min) ? String(range.min) : '-inf',
      );
      if (flat.length === 0) break;
      const mids: string[] = [];
      const ms = new Map<string, number>();
      for (let i = 0; i < flat.length; i += 2) {
        mids.push(flat[i]!);
        ms.set(flat[i]!, Number(flat[i + 1]));
      }
      cursor = { id: flat[flat.length - 2]!, score: flat[flat.length - 1]! };
      const matched = await membersOfAll(this.redis, others, mids);
      const heads = pipeline(this.redis, 'InboxesStore.search.threads');
      for (const m of matched) heads.hget(this.part(teamId, inboxId, `message:${m}`), 'thread_id');
      const tids = ((await heads.exec()) ?? []).map(([, v]) => v as string | null);
      const candidates = matched
        .map((m, i) => ({ m, t: tids[i], ms: ms.get(m)! }))
        .filter((c): c is { m: string; t: string; ms: number } => !!c.t && !listed.has(c.t));
      const placed = await this.newestOfThread(teamId, inboxId, candidates, termKeys, range.max);
      const threads = new Map(
        (await this.readThreads(teamId, inboxId, [...new Set(placed.map((c) => c.t))])).map((t) => [
          t.id,
          withoutRev(t),
        ]),
      );
      for (const c of placed) {
        if (listed.has(c.t)) continue;
        listed.add(c.t);
        if (q.before && c.t === cursorThread) {
          reached = true;
          break walk;
        }
        const t = threads.get(c.t);
        if (!t || !threadFilter(t)) continue;
        out.push({ ...t, matched_email_id: c.m });
        if (!q.before && out.length >= want) break walk;
      }
      if (mids.length < chunk) break;
    }
    if (q.before) {
      // towards newer: the `limit` threads nearest the cursor
      if (!reached) return null;
      return { items: out.slice(-q.limit), hasMore: out.length > q.limit };
    }
    return { items: out.slice(0, q.limit), hasMore: out.length > q.limit };
  }

  /**
   * Of the candidates (a matching message `m` of thread `t`), those where `m` is the thread's
   * newest message that carries every term up to `maxMs`, in the candidates' order.
   */
  private async newestOfThread(
    teamId: string,
    inboxId: string,
    candidates: readonly { m: string; t: string; ms: number }[],
    termKeys: readonly string[],
    maxMs: number,
  ): Promise<{ m: string; t: string; ms: number }[]> {
    if (candidates.length === 0) return [];
    const newer = pipeline(this.redis, 'InboxesStore.search.newer');
    const max = Number.isFinite(maxMs) ? String(maxMs) : '+inf';
    for (const c of candidates)
      newer.zrangebyscore(this.part(teamId, inboxId, `thread:${c.t}:emails`), `(${c.ms}`, max);
    const later = ((await newer.exec()) ?? []).map(([, v]) => v as string[]);
    const matching = new Set(await membersOfAll(this.redis, termKeys, [...new Set(later.flat())]));
    return candidates.filter((_, i) => !(later[i] ?? []).some((id) => matching.has(id)));
  }

  /** A thread's newest message within the range that carries every term (a search cursor's place). */
  private async newestMatch(
    teamId: string,
    inboxId: string,
    threadId: string,
    termKeys: readonly string[],
    range: { min: number; max: number },
  ): Promise<{ id: string; ms: number } | null> {
    if (!UUID_RE.test(threadId)) return null;
    const flat = await this.redis.zrevrangebyscore(
      this.part(teamId, inboxId, `thread:${threadId}:emails`),
      Number.isFinite(range.max) ? String(range.max) : '+inf',
      Number.isFinite(range.min) ? String(range.min) : '-inf',
      'WITHSCORES',
    );
    const ids = flat.filter((_, i) => i % 2 === 0);
    const [first] = await membersOfAll(this.redis, termKeys, ids);
    return first ? { id: first, ms: Number(flat[ids.indexOf(first) * 2 + 1]) } : null;
  }

  async updateThread(
    teamId: string,
    inboxId: string,
    threadId: string,
    change: { folder?: InboxFolder; read?: boolean },
    source: InboxEventSource,
  ): Promise<{ before: InboxThreadRecord; after: InboxThreadRecord } | null> {
    return this.rewriteThread(teamId, inboxId, threadId, (t) => ({ ...t, ...change }), source);
  }

  async setThreadLabels(
    teamId: string,
    inboxId: string,
    threadId: string,
    labelIds: readonly string[],
    source: InboxEventSource,
  ): Promise<InboxThreadRecord | null> {
    const done = await this.rewriteThread(
      teamId,
      inboxId,
      threadId,
      (t) => ({ ...t, label_ids: [...labelIds] }),
      source,
    );
    return done?.after ?? null;
  }

  async changeThread(
    teamId: string,
    inboxId: string,
    threadId: string,
    change: ThreadChange,
    source: InboxEventSource,
    activity: readonly InboxThreadActivity[] = [],
  ): Promise<{ before: InboxThreadRecord; after: InboxThreadRecord } | null> {
    return this.rewriteThread(
      teamId,
      inboxId,
      idKey(threadId),
      (t) => ({
        ...t,
        ...(change.folder !== undefined && { folder: change.folder }),
        ...(change.read !== undefined && { read: change.read }),
        ...(change.label_ids !== undefined && { label_ids: [...change.label_ids] }),
        ...(change.assignee !== undefined && { assignee: change.assignee }),
      }),
      source,
      activity,
    );
  }

  async activity(teamId: string, inboxId: string, threadId: string): Promise<InboxThreadActivity[]> {
    if (!UUID_RE.test(threadId)) return [];
    const json = await this.redis.hget(this.part(teamId, inboxId, `thread:${idKey(threadId)}`), 'activity');
    return json ? (JSON.parse(json) as InboxThreadActivity[]) : [];
  }

  /**
   * Reads, changes and writes a thread (compare-and-set), with the events of the change and
   * `activity` appended to its activity list (in the same write: a change and its record never
   * part).
   */
  private async rewriteThread(
    teamId: string,
    inboxId: string,
    threadId: string,
    change: (t: InboxThreadRecord) => InboxThreadRecord,
    source: InboxEventSource,
    activity: readonly InboxThreadActivity[] = [],
  ): Promise<{ before: InboxThreadRecord; after: InboxThreadRecord } | null> {
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const stored = await this.storedThread(teamId, inboxId, threadId);
      if (!stored) return null;
      const before = withoutRev(stored);
      const after = change(before);
      const labels = await this.labelMap(teamId, inboxId);
      const events: string[] = [];
      const summary = threadSummary(after, labels);
      if (after.assignee !== before.assignee) {
        events.push(
          after.assignee !== null
            ? this.eventJson(
                'inbox.thread.assigned',
                teamId,
                threadAssignedData(source, inboxId, summary, after.assignee, before.assignee),
              )
            : this.eventJson(
                'inbox.thread.unassigned',
                teamId,
                threadUnassignedData(source, inboxId, summary, before.assignee),
              ),
        );
      }
      if (after.folder !== before.folder) {
        events.push(
          this.eventJson(
            'inbox.thread.folder.updated',
            teamId,
            threadFolderData(source, inboxId, summary, before.folder, after.folder),
          ),
        );
      }
      const added = after.label_ids.filter((l) => !before.label_ids.includes(l));
      const removed = before.label_ids.filter((l) => !after.label_ids.includes(l));
      if (added.length + removed.length > 0) {
        const show = (ids: string[]) => threadLabels({ ...after, label_ids: ids }, labels);
        events.push(
          this.eventJson(
            'inbox.thread.labels.updated',
            teamId,
            threadLabelsData(source, inboxId, summary, show(added), show(removed)),
          ),
        );
      }
      let extra: string[] = [];
      if (activity.length > 0) {
        const current = await this.activity(teamId, inboxId, before.id);
        extra = ['activity', JSON.stringify([...current, ...activity].slice(-MAX_ACTIVITY))];
      }
      const ok = await this.writeThread(
        teamId,
        inboxId,
        after,
        stored.rev,
        events,
        undefined,
        extra,
        removed,
      );
      if (ok) {
        if (after.read !== before.read) await this.markMessagesRead(teamId, inboxId, after.id, after.read);
        return { before, after };
      }
    }
    throw new Error(`thread ${threadId}: too many concurrent updates`);
  }

  private async markMessagesRead(
    teamId: string,
    inboxId: string,
    threadId: string,
    read: boolean,
  ): Promise<void> {
    const ids = await this.redis.zrange(this.part(teamId, inboxId, `thread:${threadId}:emails`), '0', '-1');
    if (ids.length === 0) return;
    const multi = transaction(this.redis, 'InboxesStore.markRead');
    for (const id of ids)
      multi.petrelSetFieldsIfExists(this.part(teamId, inboxId, `message:${id}`), 'read', read ? '1' : '0');
    await execAll(multi);
  }

  async deleteThread(teamId: string, inboxId: string, threadId: string): Promise<boolean> {
    const key = this.part(teamId, inboxId, `thread:${threadId}`);
    const mids = await this.redis.zrange(this.part(teamId, inboxId, `thread:${threadId}:emails`), '0', '-1');
    const pipe = pipeline(this.redis, 'InboxesStore.deleteThread.read');
    for (const m of mids) pipe.hmget(this.part(teamId, inboxId, `message:${m}`), 'message_id', 'terms');
    pipe.hget(key, 'label_ids');
    const replies = ((await pipe.exec()) ?? []).map(([, v]) => v);
    const heads = replies.slice(0, mids.length) as (string | null)[][];
    const labelIds = JSON.parse((replies[mids.length] as string | null) ?? '[]') as string[];
    const multi = transaction(this.redis, 'InboxesStore.deleteThread');
    for (const l of labelIds) multi.zrem(this.part(teamId, inboxId, `label:${l}`), threadId);
    multi.del(key, this.part(teamId, inboxId, `thread:${threadId}:emails`));
    multi.zrem(this.part(teamId, inboxId, 'threads'), threadId);
    for (const f of INBOX_MESSAGE_FOLDERS) multi.zrem(this.part(teamId, inboxId, `folder:${f}`), threadId);
    multi.zrem(this.part(teamId, inboxId, 'unread'), threadId);
    mids.forEach((m, i) => {
      multi.del(this.part(teamId, inboxId, `message:${m}`));
      const [header, terms] = heads[i] ?? [];
      if (header) multi.hdel(this.part(teamId, inboxId, 'message-ids'), header);
      for (const t of JSON.parse(terms ?? '[]') as string[])
        multi.zrem(this.part(teamId, inboxId, `term:${t}`), m);
    });
    const res = await execAll(multi);
    return res[0] !== 0;
  }

  // ------------------------------------------------------------------------------------------
  // Messages

  async messages(
    teamId: string,
    inboxId: string,
    threadId: string,
    page: PageRequest,
  ): Promise<Page<InboxMessageRecord> | null> {
    // oldest first, as a conversation reads; the cursor pages forward in that order
    const listing = this.part(teamId, inboxId, `thread:${idKey(threadId)}:emails`);
    const all = await this.redis.zrange(listing, '0', '-1');
    let start = 0;
    let end = all.length;
    if (page.after) {
      const i = all.indexOf(page.after.toLowerCase());
      if (i < 0) return null;
      start = i + 1;
    } else if (page.before) {
      const i = all.indexOf(page.before.toLowerCase());
      if (i < 0) return null;
      end = i;
      start = Math.max(0, i - page.limit);
    }
    const ids = all.slice(start, Math.min(end, start + page.limit));
    const keys = ids.map((id) => this.part(teamId, inboxId, `message:${id}`));
    const items = await readHashes(this.redis, 'InboxesStore.messages', keys, toMessage);
    return { items, hasMore: page.before ? start > 0 : start + page.limit < end };
  }

  async message(teamId: string, inboxId: string, messageId: string): Promise<InboxMessageRecord | null> {
    if (!UUID_RE.test(messageId)) return null;
    const h = await this.redis.hgetall(this.part(teamId, inboxId, `message:${idKey(messageId)}`));
    return h.id ? toMessage(h) : null;
  }

  lookups(teamId: string, inboxId: string): ThreadLookups {
    return {
      threadsOf: async (ids) => {
        const found = await this.redis.hmget(this.part(teamId, inboxId, 'message-ids'), ...ids);
        return found.map((x) => x ?? null);
      },
      threadOfSubject: async (key) => {
        const v = await this.redis.hget(this.part(teamId, inboxId, 'subjects'), key);
        if (!v) return null;
        const [threadId = '', lastMs = '0'] = v.split(' ');
        return { threadId, lastMs: Number(lastMs) };
      },
    };
  }

  async addMessage(
    teamId: string,
    inbox: InboxRecord,
    m: NewInboxMessage,
  ): Promise<{ thread: InboxThreadRecord; created: boolean }> {
    const msgMs = Date.parse(m.message.received_at);
    let threadId = m.threadId;
    for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt++) {
      const stored = threadId ? await this.storedThread(teamId, inbox.id, threadId) : null;
      // a thread an index names but that was deleted meanwhile: the message starts a new one
      if (!stored) threadId = null;
      const created = stored === null;
      const id = stored?.id ?? m.newThreadId;
      const hasAttachment = m.message.attachments.length > 0;
      const inbound = m.message.direction === 'inbound';
      const before = stored ? withoutRev(stored) : null;
      const thread: InboxThreadRecord = before
        ? {
            ...before,
            email_count: before.email_count + 1,
            has_attachment: before.has_attachment || hasAttachment,
            // new mail brings an archived thread back to the inbox (spam and trash stay put)
            folder: inbound && before.folder === 'archive' ? 'inbox' : before.folder,
            read: inbound ? false : before.read,
            received_at: msgMs >= Date.parse(before.received_at) ? m.message.received_at : before.received_at,
          }
        : {
            id,
            subject: m.message.subject,
            from: m.message.from,
            to: m.message.to,
            cc: m.message.cc,
            bcc: m.message.bcc,
            label_ids: [],
            email_count: 1,
            has_attachment: hasAttachment,
            drafts: 0,
            read: !inbound,
            folder: m.folder,
            received_at: m.message.received_at,
            created_at: m.message.received_at,
            assignee: null,
          };
      const labels = await this.labelMap(teamId, inbox.id);
      const message: InboxMessageRecord = { ...m.message, thread_id: id };
      const summary = threadSummary(thread, labels);
      const events: string[] = [];
      const data = threadEmailData(m.source, inbox.id, summary, message);
      if (created) events.push(this.eventJson('inbox.thread.created', teamId, data));
      events.push(this.eventJson(inbound ? 'inbox.email.received' : 'inbox.email.sent', teamId, data));
      if (before && before.folder !== thread.folder) {
        events.push(
          this.eventJson(
            'inbox.thread.folder.updated',
            teamId,
            threadFolderData(m.source, inbox.id, summary, before.folder, thread.folder),
          ),
        );
      }
      const ok = await this.writeThread(teamId, inbox.id, thread, stored?.rev ?? '', events, {
        message,
        ms: msgMs,
        header: m.messageId,
        subjectKeys: m.subjectKeys,
        terms: m.terms,
      });
      if (ok) {
        if (inbound) await this.redis.set(this.part(teamId, inbox.id, 'last-received'), thread.received_at);
        return { thread, created };
      }
    }
    throw new Error(`inbox ${inbox.id}: too many concurrent writes to a thread`);
  }

  private async writeThread(
    teamId: string,
    inboxId: string,
    t: InboxThreadRecord,
    expectedRev: string,
    events: string[],
    msg?: {
      message: InboxMessageRecord;
      ms: number;
      header: string | null;
      subjectKeys: readonly string[];
      terms: readonly string[];
    },
    extraPairs: readonly string[] = [],
    lostLabels: readonly string[] = [],
  ): Promise<boolean> {
    const keys = [
      ...this.threadKeys(teamId, inboxId, t.id),
      ...t.label_ids.map((l) => this.part(teamId, inboxId, `label:${l}`)),
      ...lostLabels.map((l) => this.part(teamId, inboxId, `label:${l}`)),
    ];
    const pairs = [...threadPairs(t), ...extraPairs];
    const argv: (string | number)[] = [
      t.id,
      expectedRev,
      INBOX_MESSAGE_FOLDERS.indexOf(t.folder) + 1,
      t.read ? '1' : '0',
      Date.parse(t.received_at),
      EVENTS_STREAM_MAXLEN,
      EVENTS_STREAM_FIELD,
      events.length,
      pairs.length,
      t.label_ids.length,
      lostLabels.length,
      ...events,
      ...pairs,
    ];
    if (msg) {
      keys.push(
        this.part(teamId, inboxId, `thread:${t.id}:emails`),
        this.part(teamId, inboxId, `message:${msg.message.id}`),
        this.part(teamId, inboxId, 'message-ids'),
        this.part(teamId, inboxId, 'subjects'),
        ...msg.terms.map((term) => this.part(teamId, inboxId, `term:${term}`)),
      );
      argv.push(
        msg.message.id,
        msg.ms,
        msg.header ?? '',
        msg.subjectKeys.length,
        ...msg.subjectKeys,
        ...messagePairs(msg.message, msg.terms),
      );
    }
    return (await this.redis.petrelWriteInboxThread(keys.length, ...keys, ...argv)) === 1;
  }

  private async labelMap(teamId: string, inboxId: string): Promise<Map<string, InboxLabelRecord>> {
    return new Map((await this.labels(teamId, inboxId)).map((l) => [l.id, l]));
  }

  /** An `inbox.*` event with its `data` from core's builders (wire.ts: the SDK's shapes). */
  private eventJson(type: TeamEvent['type'], teamId: string, data: Record<string, unknown>): string {
    return teamEventJson(type, teamId, data, this.clock.now());
  }
}

const NO_COUNTS = { unread: 0, drafts: 0, lastReceived: null };

function inRange(ms: number, q: { startMs?: number; endMs?: number }): boolean {
  return (q.startMs === undefined || ms >= q.startMs) && (q.endMs === undefined || ms <= q.endMs);
}

function inboxPairs(i: InboxRecord): string[] {
  const out = [
    'id', i.id,
    'email_address', i.email_address,
    'forwarding', i.forwarding ? '1' : '0',
    'domain_id', i.domain_id,
    'created_at', i.created_at,
    'updated_at', i.updated_at,
    'agent_actions', JSON.stringify(i.agent_actions),
  ]; // prettier-ignore
  if (i.name !== null) out.push('name', i.name);
  if (i.from_name !== null) out.push('from_name', i.from_name);
  if (i.agent_instructions !== null) out.push('agent_instructions', i.agent_instructions);
  if (i.agent_tone !== null) out.push('agent_tone', i.agent_tone);
  return out;
}

function toInbox(h: Record<string, string>): InboxRecord {
  return {
    id: h.id ?? '',
    email_address: h.email_address ?? '',
    name: h.name ?? null,
    from_name: h.from_name ?? null,
    forwarding: h.forwarding === '1',
    domain_id: h.domain_id ?? '',
    created_at: h.created_at ?? '',
    updated_at: h.updated_at ?? '',
    agent_instructions: h.agent_instructions ?? null,
    agent_tone: (h.agent_tone ?? null) as InboxRecord['agent_tone'],
    agent_actions: JSON.parse(h.agent_actions ?? '[]') as InboxRecord['agent_actions'],
  };
}

function threadPairs(t: InboxThreadRecord): string[] {
  return [
    'id', t.id,
    'subject', JSON.stringify(t.subject),
    'from', JSON.stringify(t.from),
    'to', JSON.stringify(t.to),
    'cc', JSON.stringify(t.cc),
    'bcc', JSON.stringify(t.bcc),
    'label_ids', JSON.stringify(t.label_ids),
    'email_count', String(t.email_count),
    'has_attachment', t.has_attachment ? '1' : '0',
    'drafts', String(t.drafts),
    'read', t.read ? '1' : '0',
    'folder', t.folder,
    'received_at', t.received_at,
    'created_at', t.created_at,
    'assignee', JSON.stringify(t.assignee),
  ]; // prettier-ignore
}

function toThread(v: (string | null)[]): StoredThread {
  const f = Object.fromEntries(THREAD_FIELDS.map((k, i) => [k, v[i] ?? null])) as Record<
    (typeof THREAD_FIELDS)[number],
    string | null
  >;
  return {
    id: f.id ?? '',
    subject: JSON.parse(f.subject ?? 'null') as string | null,
    from: JSON.parse(f.from ?? 'null') as string | null,
    to: JSON.parse(f.to ?? '[]') as string[],
    cc: JSON.parse(f.cc ?? '[]') as string[],
    bcc: JSON.parse(f.bcc ?? '[]') as string[],
    label_ids: JSON.parse(f.label_ids ?? '[]') as string[],
    email_count: Number(f.email_count ?? 0),
    has_attachment: f.has_attachment === '1',
    drafts: Number(f.drafts ?? 0),
    read: f.read === '1',
    folder: (f.folder ?? 'inbox') as InboxFolder,
    received_at: f.received_at ?? '',
    created_at: f.created_at ?? '',
    assignee: JSON.parse(f.assignee ?? 'null') as string | null,
    rev: f.rev ?? '0',
  };
}

function withoutRev(t: StoredThread): InboxThreadRecord {
  const { rev: _rev, ...rest } = t;
  return rest;
}

function messagePairs(m: InboxMessageRecord, terms: readonly string[]): string[] {
  return [
    'id', m.id,
    'thread_id', m.thread_id,
    'direction', m.direction,
    'from', m.from,
    'to', JSON.stringify(m.to),
    'cc', JSON.stringify(m.cc),
    'bcc', JSON.stringify(m.bcc),
    'reply_to', JSON.stringify(m.reply_to),
    'subject', JSON.stringify(m.subject),
    'message_id', m.message_id ?? '',
    'references', JSON.stringify(m.references),
    'attachments', JSON.stringify(m.attachments),
    'read', m.read ? '1' : '0',
    'received_at', m.received_at,
    'terms', JSON.stringify(terms),
  ]; // prettier-ignore
}

function toMessage(h: Record<string, string>): InboxMessageRecord {
  return {
    id: h.id ?? '',
    thread_id: h.thread_id ?? '',
    direction: (h.direction ?? 'inbound') as InboxMessageRecord['direction'],
    from: h.from ?? '',
    to: JSON.parse(h.to ?? '[]') as string[],
    cc: JSON.parse(h.cc ?? '[]') as string[],
    bcc: JSON.parse(h.bcc ?? '[]') as string[],
    reply_to: JSON.parse(h.reply_to ?? '[]') as string[],
    subject: JSON.parse(h.subject ?? 'null') as string | null,
    message_id: h.message_id || null,
    references: JSON.parse(h.references ?? '[]') as string[],
    attachments: JSON.parse(h.attachments ?? '[]') as InboxMessageRecord['attachments'],
    read: h.read === '1',
    received_at: h.received_at ?? '',
  };
}
