/**
 * The email search indexes behind the list page's filters (GET /emails?to=&status=&tag=&subject=):
 * per team and term (core's dashboard/email-search.ts says what the terms are), a sorted set of
 * email ids by creation ms, `Keys.emailSearch(team) + term`, all in the team's slot.
 *
 * Group postings: a term every email of one write has (an acceptance request's shared subject
 * words and tags) is posted once for the write — one member listing the emails' ids, scored by
 * their common creation ms (lua/includes/email-search-group.lua) — instead of once per email;
 * the other terms (each recipient, a tag only some have) and the status are per email. A
 * 100-email request whose emails share 4 subject words makes 4 inserts for them instead of 400.
 * The group's ids live in the member itself rather than in a key of their own: the scripts that
 * read a group would otherwise touch keys their caller could not name in KEYS, which Redis
 * Cluster requires (scripts.ts). Reads expand a group where it stands, so they list exactly
 * what per-email postings list, in the same order.
 *
 * Writes: the term indexes and the initial status index are written by `petrelIndexEmails`, in
 * the same pipeline as the records (acceptance) or right after them (broadcast fan-out), before
 * any send job exists; status moves happen inside the scripts that change the status. Term
 * indexes trim themselves and expire (see the script); the status indexes are trimmed with the
 * listing by housekeeping ({@link EmailSearch.trimStatusIndexes}); reads never list an id older
 * than the retention, trimmed yet or not.
 *
 * Reads never scan the team's emails: one filter walks its own index from the cursor; several
 * filters walk the SMALLEST of their indexes (ZCARD) in chunks and keep the ids present in all
 * others (ZMSCORE), so a page costs the candidates of the most selective filter up to the page,
 * never the size of the account. Cursors are email ids placed by their creation ms (the
 * listing's score), so an email that left a status index since still marks the page's place.
 */
import type { ChainableCommander } from 'ioredis';
import { EMAIL_STATUSES } from '@petrel/contracts';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { pipeline, type QueuedStoreCommands, type StoreCommands } from './scripts.js';

export interface IndexEntry {
  id: string;
  /** The email's terms (`emailSearchTerms`), its status excepted. */
  terms: readonly string[];
}

export interface SearchPage {
  limit: number;
  after?: string;
  before?: string;
}

/** Candidates read per round when several filters are combined. */
const COMBINED_CHUNK = 200;

export class EmailSearch {
  constructor(
    private readonly redis: RedisClient & StoreCommands,
    private readonly keys: Keys,
    private readonly retentionMs: number,
    private readonly clock: { now(): number } = Date,
  ) {}

  termKey(teamId: string, term: string): string {
    return `${this.keys.emailSearch(teamId)}${term}`;
  }

  /** The team's status indexes, in EMAIL_STATUSES order (a status's rank is its position). */
  statusKeys(teamId: string): string[] {
    return EMAIL_STATUSES.map((s) => this.termKey(teamId, `status:${s}`));
  }

  /** Queue the indexing of `entries` (their records written before, in the same batch or earlier). */
  queueIndex(batch: ChainableCommander, teamId: string, entries: readonly IndexEntry[]): void {
    if (entries.length === 0) return;
    const [keys, args] = this.indexCall(teamId, entries);
    (batch as unknown as QueuedStoreCommands).petrelIndexEmails(keys.length, ...keys, ...args);
  }

  /**
   * Index `entries` now (their records exist), the terms all of them have as one group posting.
   * Returns how many were indexed.
   */
  index(teamId: string, entries: readonly IndexEntry[]): Promise<number> {
    if (entries.length === 0) return Promise.resolve(0);
    const [keys, args] = this.indexCall(teamId, entries);
    return this.redis.petrelIndexEmails(keys.length, ...keys, ...args);
  }

  private indexCall(teamId: string, entries: readonly IndexEntry[]): [string[], (string | number)[]] {
    const keys = this.statusKeys(teamId);
    const n = entries.length;
    for (const e of entries) keys.push(this.keys.email(teamId, e.id));
    // each term key once (a batch's emails share most of theirs), named by position per email;
    // a term's count of emails tells the shared ones (an email's terms are distinct)
    const termPos = new Map<string, number>();
    const termKeys: string[] = [];
    const counts: number[] = [];
    const positions: number[] = [];
    for (const e of entries) {
      for (const t of e.terms) {
        let pos = termPos.get(t);
        if (pos === undefined) {
          pos = termKeys.push(this.termKey(teamId, t));
          termPos.set(t, pos);
          counts.push(0);
        }
        counts[pos - 1]!++;
        positions.push(pos);
      }
    }
    // one email alone is posted on its own: a group of one would only cost its reads
    const shared: number[] = [];
    if (n > 1) counts.forEach((c, i) => c === n && shared.push(i + 1));
    const args: (string | number)[] = [keys.length - n, this.retentionMs, n, shared.length, ...shared];
    let at = 0;
    for (const e of entries) {
      const own = e.terms.length - shared.length;
      args.push(e.id, own);
      for (const end = at + e.terms.length; at < end; at++) {
        const pos = positions[at]!;
        if (shared.length === 0 || counts[pos - 1] !== n) args.push(pos);
      }
    }
    for (const k of termKeys) keys.push(k);
    return [keys, args];
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
    const indexes = [...new Set(terms)].map((t) => this.termKey(teamId, t));
    const cursorId = page.after ?? page.before;
    const batch = pipeline(this.redis, 'EmailSearch.search');
    for (const k of indexes) batch.zcard(k);
    if (cursorId) batch.zscore(this.keys.emails(teamId), cursorId);
    const replies = (await batch.exec()) ?? [];
    for (const [err] of replies) if (err) throw err;
    let cursor: { score: string; id: string } | null = null;
    if (cursorId) {
      const score = replies[indexes.length]?.[1] as string | null;
      if (score === null || score === undefined) return null;
      cursor = { score, id: cursorId };
    }
    // the most selective index drives; the others are checked per candidate. A group posting
    // counts one in ZCARD: the pick can be less selective than it looks, the page is the same
    const sizes = indexes.map((_, i) => Number(replies[i]![1]));
    const order = indexes.map((k, i) => ({ k, n: sizes[i]! })).sort((a, b) => a.n - b.n);
    const driver = order[0]!.k;
    if (order[0]!.n === 0) return { ids: [], hasMore: false };
    // the term indexes first: only they may hold group postings (status moves are per email)
    const statuses = new Set(this.statusKeys(teamId));
    const rest = order.slice(1).map((o) => o.k);
    const termIndexes = rest.filter((k) => !statuses.has(k));
    const others = [...termIndexes, ...rest.filter((k) => statuses.has(k))];
    const desc = !page.before;
    const bound = String(this.clock.now() - this.retentionMs);
    const want = page.limit + 1;
    const chunk = others.length === 0 ? want : Math.max(COMBINED_CHUNK, want * 2);
    const found = await walkIndex(
      this.redis,
      { driver, others, grouped: termIndexes.length, desc, cursor, chunk, bound, want },
      async (ids) => ids,
    );
    if (desc) return { ids: found.slice(0, page.limit), hasMore: found.length > page.limit };
    // towards newer: the `limit` nearest the cursor, shown newest first
    return { ids: found.slice(0, page.limit).reverse(), hasMore: found.length > page.limit };
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
 * of `chunk` (petrelEmailSearchRange, group postings expanded; each next chunk twice the last,
 * up to `maxChunk`), keeps the ids present in every one of `others`, and hands each chunk's
 * kept ids to `take`; stops once `want` items are taken or the set ends, scores below `bound`
 * excluded. The items in walk order. With `grouped`, the first `grouped` of `others` may hold
 * group postings, and presence is checked by petrelEmailSearchMembers; without, by ZMSCORE.
 */
export async function walkIndex<T>(
  redis: RedisClient & StoreCommands,
  o: {
    driver: string;
    others: readonly string[];
    grouped?: number;
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
    const kept =
      o.grouped === undefined || o.others.length === 0
        ? await membersOfAll(redis, o.others, ids)
        : await redis.petrelEmailSearchMembers(o.others.length, ...o.others, o.grouped, ...flat);
    found.push(...(await take(kept)));
    if (ids.length < chunk) break;
    if (o.maxChunk !== undefined && chunk < o.maxChunk) chunk = Math.min(chunk * 2, o.maxChunk);
  }
  return found;
}
