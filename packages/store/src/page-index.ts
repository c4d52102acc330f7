/**
 * Cursor pagination over a creation-time sorted set, newest first, as Resend's list endpoints
 * page: `after` pages towards older members, `before` towards newer ones. Returns null for an
 * unknown cursor.
 */
import type { RedisClient } from './redis.js';

export interface PageOptions {
  limit: number;
  after?: string;
  before?: string;
}

export async function pageIndex(
  redis: RedisClient,
  index: string,
  opts: PageOptions,
): Promise<{ ids: string[]; hasMore: boolean } | null> {
  const cursor = opts.after ?? opts.before;
  if (!cursor) {
    const ids = await redis.zrevrange(index, 0, opts.limit);
    return { ids: ids.slice(0, opts.limit), hasMore: ids.length > opts.limit };
  }
  const rank = await redis.zrevrank(index, cursor);
  if (rank === null) return null;
  if (opts.after) {
    const ids = await redis.zrevrange(index, rank + 1, rank + opts.limit + 1);
    return { ids: ids.slice(0, opts.limit), hasMore: ids.length > opts.limit };
  }
  const ids = rank === 0 ? [] : await redis.zrevrange(index, Math.max(0, rank - opts.limit - 1), rank - 1);
  return { ids: ids.slice(-opts.limit), hasMore: ids.length > opts.limit };
}
