/**
 * The email search indexes behind the list page's filters (GET /emails?to=&status=&tag=&subject=),
 * all in the team's slot (core's dashboard/email-search.ts says what the terms are):
 *  - per status, a sorted set of email ids by creation ms, `Keys.emailSearch(team) + status:<s>`;
 *  - every other term in the team's DAY SETS: per day of creation, one sorted set
 *    `Keys.emailSearch(team) + day:<n>` (n = ms / 86,400,000) whose members `<term> \0 <ms> \0
 *    <id>` all score 0 and so sort as bytes (lua/includes/email-search-postings.lua): a term's
 *    postings are one lexicographic run of each day's set, in listing order.
 *
 * Why day sets: a term only one email has (its recipient, an order number in its subject) was a
 * sorted set of its own per email — a key created, trimmed and given a TTL for each, the bulk of
 * acceptance's index cost. In a day set it is one more member of the write's one ZADD; the set
 * expires a retention after its day ends, so nothing is trimmed or re-expired per term.
 *
 * Group postings: a term every email of one write has (an acceptance request's shared subject
 * words and tags) is posted once for the write, `<term> \0 <ms> \0 ~<id>,<id>,…`, instead of
 * once per email. A 100-email request whose emails share 4 subject words makes 4 postings for
 * them instead of 400. Reads expand a group where it stands, so they list exactly what
 * per-email postings list, in the same order.
 *
 * Writes: the postings and the initial status entry are written by `petrelIndexEmails`, in the
 * same pipeline as the records (acceptance) or right after them (broadcast fan-out), before any
 * send job exists: a few commands per write, none per email (one ZMSCORE of the listing, one
 * ZADD per day set and status). Status moves happen inside the scripts that change the status; the status indexes are
 * trimmed with the listing by housekeeping ({@link EmailSearch.trimStatusIndexes}); reads never
 * list an id older than the retention, trimmed or expired yet or not.
 *
 * Reads never scan the team's emails: a page is a few steps of `petrelEmailSearchPage`, each
 * walking the SMALLEST of the query's indexes (ZLEXCOUNT per day set, ZCARD per status) from
 * the cursor over at most a chunk of ids and keeping those every other index lists, so a page
 * costs the candidates of the most selective filter up to the page, never the size of the
 * account. Cursors are email ids placed by their creation ms (the listing's score), so an email
 * that left a status index since still marks the page's place.
 */
import type { ChainableCommander } from 'ioredis';
import { EMAIL_STATUSES, type EmailStatus } from '@petrel/contracts';
import { emailStatusRank } from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { pipeline, type QueuedStoreCommands, type StoreCommands } from './scripts.js';

export interface IndexEntry {
  id: string;
  /** The email's terms (`emailSearchTerms`), its status excepted. */
  terms: readonly string[];
  /** Its status when the write created it. */
  status: EmailStatus;
}

export interface SearchPage {
  limit: number;
  after?: string;
  before?: string;
}

/** Candidates read per step when several filters are combined. */
const COMBINED_CHUNK = 200;
const DAY_MS = 86_400_000;
/** The separator of a posting's parts (email-search-postings.lua): below every term character. */
const SEP = '\0';
const GROUP_MARK = '~';

const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

export class EmailSearch {
  constructor(
    private readonly redis: RedisClient & StoreCommands,
    private readonly keys: Keys,
    private readonly retentionMs: number,
    private readonly clock: { now(): number } = Date,
  ) {}

  /** A status index: `status:<status>` (statusTerm), email ids by creation ms. */
  termKey(teamId: string, term: string): string {
    return `${this.keys.emailSearch(teamId)}${term}`;
  }

  /** The term postings of the emails created on day `day` (ms / 86,400,000). */
  dayKey(teamId: string, day: number): string {
    return `${this.keys.emailSearch(teamId)}day:${day}`;
  }

  /** The team's status indexes, in EMAIL_STATUSES order (a status's rank is its position). */
  statusKeys(teamId: string): string[] {
    return EMAIL_STATUSES.map((s) => this.termKey(teamId, `status:${s}`));
  }

  /**
   * Queue the indexing of `entries` (their records written before, in the same batch or earlier,
   * by a write at `createdMs`: the emails it created have that listing score).
   */
  queueIndex(
    batch: ChainableCommander,
    teamId: string,
    entries: readonly IndexEntry[],
    createdMs: number,
  ): void {
    if (entries.length === 0) return;
    const [keys, args] = this.indexCall(teamId, entries, createdMs);
    (batch as unknown as QueuedStoreCommands).petrelIndexEmails(keys.length, ...keys, ...args);
  }

  /**
   * Index `entries` now (their records written by a write at `createdMs`), the terms all of them
   * have as one group posting. Returns how many were indexed.
   */
  index(teamId: string, entries: readonly IndexEntry[], createdMs: number): Promise<number> {
    if (entries.length === 0) return Promise.resolve(0);
    const [keys, args] = this.indexCall(teamId, entries, createdMs);
    return this.redis.petrelIndexEmails(keys.length, ...keys, ...args);
  }

  private indexCall(
    teamId: string,
    entries: readonly IndexEntry[],
    createdMs: number,
  ): [string[], (string | number)[]] {
    const keys = this.statusKeys(teamId);
    keys.push(this.keys.emails(teamId));
    const n = entries.length;
    // the day sets of the write's day and the day before (a retried write's records may be
    // from then; older ones were posted by the write that created them)
    const day = dayOf(createdMs);
    keys.push(this.dayKey(teamId, day - 1), this.dayKey(teamId, day));
    // a term's count of emails tells the shared ones (an email's terms are distinct); one
    // email alone is posted on its own: a group of one would only cost its reads
    const shared: string[] = [];
    if (n > 1) {
      const counts = new Map<string, number>();
      for (const e of entries) for (const t of e.terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, c] of counts) if (c === n) shared.push(t);
    }
    const ttlBase = this.retentionMs - this.clock.now();
    const args: (string | number)[] = [
      EMAIL_STATUSES.length,
      n,
      2,
      day - 1,
      ttlBase,
      createdMs,
      shared.length,
      ...shared,
    ];
    if (shared.length === 0) {
      for (const e of entries) args.push(e.id, emailStatusRank(e.status), e.terms.length, ...e.terms);
    } else {
      const isShared = new Set(shared);
      for (const e of entries) {
        const at = args.push(e.id, emailStatusRank(e.status), 0);
        for (const t of e.terms) if (!isShared.has(t)) args.push(t);
        args[at - 1] = args.length - at;
      }
    }
    return [keys, args];
  }

  /** The days whose sets a read walks: the retention's first to tomorrow (another clock's). */
  private readDays(teamId: string, now: number): { day0: number; keys: string[] } {
    const day0 = dayOf(now - this.retentionMs);
    const keys: string[] = [];
    for (let d = day0; d <= dayOf(now) + 1; d++) keys.push(this.dayKey(teamId, d));
    return { day0, keys };
  }

  /**
   * One page of the ids matching every term, newest first, as the plain listing pages: `after`
   * towards older emails, `before` towards newer ones. Null when the cursor is no email of the
   * team's listing.
   */
  async search(
    teamId: string,
    terms: readonly string[],
    page: SearchPage,
  ): Promise<{ ids: string[]; hasMore: boolean } | null> {
    const unique = [...new Set(terms)];
    const statuses = unique.filter((t) => t.startsWith('status:')).map((t) => this.termKey(teamId, t));
    const others = unique.filter((t) => !t.startsWith('status:'));
    const cursorId = page.after ?? page.before;
    let cursor: { ms: string; id: string } | null = null;
    if (cursorId) {
      const score = await this.redis.zscore(this.keys.emails(teamId), cursorId);
      if (score === null) return null;
      cursor = { ms: score, id: cursorId };
    }
    const now = this.clock.now();
    const { day0, keys } = this.readDays(teamId, now);
    keys.push(...statuses);
    const desc = !page.before;
    const bound = String(now - this.retentionMs).padStart(13, '0');
    const want = page.limit + 1;
    const chunk = unique.length === 1 ? want : Math.max(COMBINED_CHUNK, want * 2);
    const found: string[] = [];
    // each step one script: the most selective index walked from the cursor, `chunk` ids at most
    while (found.length < want) {
      const [more, ms, id, ...kept] = await this.redis.petrelEmailSearchPage(
        keys.length,
        ...keys,
        day0,
        keys.length - statuses.length,
        others.length,
        ...others,
        desc ? 'desc' : 'asc',
        cursor?.ms ?? '',
        cursor?.id ?? '',
        chunk,
        bound,
      );
      found.push(...(kept as string[]));
      if (Number(more) !== 1) break;
      cursor = { ms: String(ms), id: String(id) };
    }
    if (desc) return { ids: found.slice(0, page.limit), hasMore: found.length > page.limit };
    // towards newer: the `limit` nearest the cursor, shown newest first
    return { ids: found.slice(0, page.limit).reverse(), hasMore: found.length > page.limit };
  }

  /**
   * Every id listed under `term` (a status or another term) within the retention, each once,
   * in no particular order — for an index known to be small (one recipient's emails).
   */
  async ids(teamId: string, term: string): Promise<string[]> {
    if (term.startsWith('status:')) return this.redis.zrange(this.termKey(teamId, term), '0', '-1');
    const { keys } = this.readDays(teamId, this.clock.now());
    const batch = pipeline(this.redis, 'EmailSearch.ids');
    for (const k of keys) batch.zrangebylex(k, `[${term}${SEP}`, `(${term}\x01`);
    const out = new Set<string>();
    for (const [err, members] of (await batch.exec()) ?? []) {
      if (err) throw err;
      for (const m of members as string[]) {
        const x = m.slice(term.length + 15);
        if (x.startsWith(GROUP_MARK)) for (const id of x.slice(1).split(',')) out.add(id);
        else out.add(x);
      }
    }
    return [...out];
  }

  /** Drop ids of emails created before `cutoffMs` from the team's status indexes. */
  async trimStatusIndexes(teamId: string, cutoffMs: number): Promise<number> {
    const batch = pipeline(this.redis, 'EmailSearch.trimStatusIndexes');
    for (const k of this.statusKeys(teamId)) batch.zremrangebyscore(k, '-inf', `(${cutoffMs}`);
    const replies = (await batch.exec()) ?? [];
    let n = 0;
    for (const [err, removed] of replies) {
      if (err) throw err;
      n += Number(removed);
    }
    return n;
  }

  /** The keys and arguments of petrelDeleteEmail's search part for an email created at `createdMs`. */
  deleteCall(
    teamId: string,
    terms: readonly string[],
    createdMs: number,
  ): { keys: string[]; args: (string | number)[] } {
    const keys = [...this.statusKeys(teamId), this.dayKey(teamId, dayOf(createdMs))];
    return { keys, args: [EMAIL_STATUSES.length, ...terms] };
  }
}

/** The ids (in order) that are members of every one of the sorted sets `indexes` (ZMSCORE each). */
export async function membersOfAll(
  redis: RedisClient,
  indexes: readonly string[],
  ids: readonly string[],
): Promise<string[]> {
  if (indexes.length === 0 || ids.length === 0) return [...ids];
  const batch = pipeline(redis, 'membersOfAll');
  for (const k of indexes) batch.zmscore(k, ...ids);
  const replies = (await batch.exec()) ?? [];
  const keep = ids.map(() => true);
  for (const [err, scores] of replies) {
    if (err) throw err;
    (scores as (string | null)[]).forEach((s, i) => {
      if (s === null) keep[i] = false;
    });
  }
  return ids.filter((_, i) => keep[i]);
}

/**
 * Walks the sorted set `driver` from `cursor` (exclusive; `desc` towards lower scores) in chunks
 * of `chunk` (petrelEmailSearchRange; each next chunk twice the last, up to `maxChunk`), keeps
 * the ids present in every one of `others` (ZMSCORE), and hands each chunk's kept ids to `take`;
 * stops once `want` items are taken or the set ends, scores below `bound` excluded. The items
 * in walk order. (The inboxes' indexes; the email search has day sets of its own.)
 */
export async function walkIndex<T>(
  redis: RedisClient & StoreCommands,
  o: {
    driver: string;
    others: readonly string[];
    desc: boolean;
    cursor: { score: string; id: string } | null;
    chunk: number;
    maxChunk?: number;
    bound: string;
    want: number;
  },
  take: (ids: string[]) => Promise<readonly T[]>,
): Promise<T[]> {
  let cursor = o.cursor;
  let chunk = o.chunk;
  const found: T[] = [];
  while (found.length < o.want) {
    const flat = await redis.petrelEmailSearchRange(
      o.driver,
      o.desc ? 'desc' : 'asc',
      cursor?.score ?? '',
      cursor?.id ?? '',
      chunk,
      o.bound,
    );
    if (flat.length === 0) break;
    const ids: string[] = [];
    for (let i = 0; i < flat.length; i += 2) ids.push(flat[i]!);
    cursor = { id: flat[flat.length - 2]!, score: flat[flat.length - 1]! };
    found.push(...(await take(await membersOfAll(redis, o.others, ids))));
    if (ids.length < chunk) break;
    if (o.maxChunk !== undefined && chunk < o.maxChunk) chunk = Math.min(chunk * 2, o.maxChunk);
  }
  return found;
}
