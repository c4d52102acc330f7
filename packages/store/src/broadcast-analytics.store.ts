/**
 * A broadcast's recipients by group and its clicked links (core's broadcast-analytics.ts), from
 * the indexes petrelRecordEmailEvents writes as the broadcast's emails are sent and tracked
 * (`Keys.broadcastRecipients`, `broadcastLinks`, `broadcastLinkClicks`). Every member of those
 * sorted sets has score 0, so a page is a lexicographic range (ZRANGE … BYLEX, O(log N + page)):
 * `<group>:<emailId>` from a cursor, whatever the broadcast's size. A page's rows are read from
 * the emails' records (one HGETALL each, pipelined).
 */
import type {
  BroadcastAnalyticsPorts,
  BroadcastRecipientState,
  BounceKind,
  RecipientsQuery,
} from '@petrel/core';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';
import { defineScripts, pipeline } from './scripts.js';
import { EmailSearch } from './email-search.js';

type Analytics = BroadcastAnalyticsPorts['analytics'];

/** Ids read per step when a page is filtered by the recipient's address. */
const FILTER_CHUNK = 200;

/** One page of a BYLEX range of members starting with `prefix`, after or before `cursor`. */
async function lexPage(
  redis: RedisClient,
  key: string,
  prefix: string,
  limit: number,
  after?: string,
  before?: string,
): Promise<{ members: string[]; hasMore: boolean }> {
  // the members starting with `prefix` (which ends in `:`) sort before `<prefix without :>;`
  const lo = after !== undefined ? `(${prefix}${after}` : prefix ? `[${prefix}` : '-';
  const hi = before !== undefined ? `(${prefix}${before}` : prefix ? `(${prefix.slice(0, -1)};` : '+';
  const members =
    before !== undefined
      ? (await redis.zrange(key, hi, lo, 'BYLEX', 'REV', 'LIMIT', 0, limit + 1)).reverse()
      : await redis.zrange(key, lo, hi, 'BYLEX', 'LIMIT', 0, limit + 1);
  const hasMore = members.length > limit;
  if (hasMore) {
    if (before !== undefined) members.shift();
    else members.pop();
  }
  return { members: members.map((m) => m.slice(prefix.length)), hasMore };
}

export class BroadcastAnalyticsStore implements Analytics {
  private readonly search: EmailSearch;

  constructor(
    private readonly redis: RedisClient,
    private readonly keys: Keys,
    retentionMs: number,
  ) {
    this.search = new EmailSearch(defineScripts(redis), keys, retentionMs);
  }

  async recipients(
    teamId: string,
    broadcastId: string,
    query: RecipientsQuery,
    page: { limit: number; afterId?: string; beforeId?: string },
  ): Promise<{ items: BroadcastRecipientState[]; hasMore: boolean }> {
    const key = this.keys.broadcastRecipients(teamId, broadcastId);
    const prefix = `${query.group}:`;
    let ids: string[];
    let hasMore: boolean;
    if (query.toTerm === undefined) {
      ({ members: ids, hasMore } = await lexPage(
        this.redis,
        key,
        prefix,
        page.limit,
        page.afterId,
        page.beforeId,
      ));
    } else {
      // the emails to that address (the list page's recipient index: a few per address), kept
      // when in the group
      const all = (await this.search.ids(teamId, query.toTerm)).sort();
      const kept: string[] = [];
      for (let i = 0; i < all.length; i += FILTER_CHUNK) {
        const chunk = all.slice(i, i + FILTER_CHUNK);
        const scores = await this.redis.zmscore(key, ...chunk.map((id) => prefix + id));
        chunk.forEach((id, j) => scores[j] !== null && kept.push(id));
      }
      const from = page.afterId !== undefined ? kept.filter((id) => id > page.afterId!) : kept;
      const upto = page.beforeId !== undefined ? from.filter((id) => id < page.beforeId!) : from;
      ids = page.beforeId !== undefined ? upto.slice(-page.limit) : upto.slice(0, page.limit);
      hasMore = upto.length > ids.length;
    }
    if (ids.length === 0) return { items: [], hasMore: false };
    const batch = pipeline(this.redis, 'BroadcastAnalytics.recipients');
    for (const id of ids) batch.hgetall(this.keys.email(teamId, id));
    const replies = (await batch.exec()) ?? [];
    const items: BroadcastRecipientState[] = [];
    ids.forEach((id, i) => {
      const [err, hash] = replies[i] ?? [];
      if (err) throw err;
      const r = (hash ?? {}) as Record<string, string>;
      if (!r.id) return; // expired with the email retention before the index did
      const content = JSON.parse(r.content ?? '{}') as { to?: string[] };
      const links: { url: string; clicks: number }[] = [];
      for (const [field, value] of Object.entries(r))
        if (field.startsWith('link:')) links.push({ url: field.slice(5), clicks: Number(value) });
      items.push({
        emailId: id,
        contactId: r.contact_id || null,
        email: content.to?.[0] ?? '',
        opens: Number(r.opens ?? 0),
        clicks: Number(r.clicks ?? 0),
        bounceKind: (r.bounce_type as BounceKind | undefined) ?? null,
        links: links.sort((a, b) => (a.url < b.url ? -1 : 1)),
      });
    });
    return { items, hasMore };
  }

  async links(
    teamId: string,
    broadcastId: string,
    page: { limit: number; afterUrl?: string; beforeUrl?: string },
  ): Promise<{ items: { url: string; clicks: number; uniqueClicks: number }[]; hasMore: boolean }> {
    const { members, hasMore } = await lexPage(
      this.redis,
      this.keys.broadcastLinks(teamId, broadcastId),
      '',
      page.limit,
      page.afterUrl,
      page.beforeUrl,
    );
    if (members.length === 0) return { items: [], hasMore: false };
    const counts = await this.redis.hmget(
      this.keys.broadcastLinkClicks(teamId, broadcastId),
      ...members.flatMap((url) => [`c:${url}`, `u:${url}`]),
    );
    return {
      items: members.map((url, i) => ({
        url,
        clicks: Number(counts[2 * i] ?? 0),
        uniqueClicks: Number(counts[2 * i + 1] ?? 0),
      })),
      hasMore,
    };
  }
}
