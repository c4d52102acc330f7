/**
 * Cursor pagination over a creation-time sorted set, newest first, as Resend's list endpoints
 * page: `after` pages towards older members, `before` towards newer ones. Returns null for an
 * unknown cursor.
 */
import type { RedisClient } from './redis.js';
import { pipeline } from './scripts.js';

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

/**
 * The hashes at `keys`, decoded, in one round trip and in that order. A hash that is gone (no
 * `id` field: expired or deleted since its id was read) is left out.
 */
export async function readRecords<T>(
  redis: RedisClient,
  what: string,
  keys: readonly string[],
  decode: (hash: Record<string, string>) => T,
): Promise<T[]> {
  if (keys.length === 0) return [];
  const pipe = pipeline(redis, what);
  for (const key of keys) pipe.hgetall(key);
  const rows = (await pipe.exec()) ?? [];
  return rows
    .map(([, h]) => h as Record<string, string>)
    .filter((h) => h?.id)
    .map(decode);
}

/** A page of `index` (see pageIndex) read as records (see readRecords); null for an unknown cursor. */
export async function pageRecords<T>(
  redis: RedisClient,
  what: string,
  index: string,
  opts: PageOptions,
  keyOf: (id: string) => string,
  decode: (hash: Record<string, string>) => T,
): Promise<{ items: T[]; hasMore: boolean } | null> {
  const page = await pageIndex(redis, index, opts);
  if (!page) return null;
  return { items: await readRecords(redis, what, page.ids.map(keyOf), decode), hasMore: page.hasMore };
}
