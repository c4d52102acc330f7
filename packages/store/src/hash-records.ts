/**
 * Reading records stored one hash per record (segments, contact properties, contacts), each
 * with an `id` field: by id, by page of a creation-time index, or many at once.
 */
import { UUID_RE, type Page, type PageRequest, idKey } from '@petrel/core';
import type { RedisClient } from './redis.js';
import { pageIndex } from './page-index.js';
import { execAll, pipeline } from './scripts.js';

/**
 * The hashes of `keys` in one pipeline (one round trip, one slot), in that order, skipping any
 * deleted meanwhile (an empty hash has no `id`).
 */
export async function readHashes<T>(
  redis: RedisClient,
  what: string,
  keys: readonly string[],
  toRecord: (r: Record<string, string>) => T,
): Promise<T[]> {
  if (keys.length === 0) return [];
  const pipe = pipeline(redis, what);
  for (const key of keys) pipe.hgetall(key);
  const rows = (await execAll(pipe)) as Record<string, string>[];
  return rows.filter((r) => r.id).map(toRecord);
}

/** The record with id `id` (a UUID, matched in any case), or null. */
export async function getHash<T>(
  redis: RedisClient,
  keyOf: (id: string) => string,
  id: string,
  toRecord: (r: Record<string, string>) => T,
): Promise<T | null> {
  if (!UUID_RE.test(id)) return null;
  const r = await redis.hgetall(keyOf(idKey(id)));
  return r.id ? toRecord(r) : null;
}

/** A page of the records listed in the creation-time index `index` (newest first); null for an unknown cursor. */
export async function pageHashes<T>(
  redis: RedisClient,
  what: string,
  index: string,
  page: PageRequest,
  keyOf: (id: string) => string,
  toRecord: (r: Record<string, string>) => T,
): Promise<Page<T> | null> {
  const found = await pageIndex(redis, index, page);
  if (!found) return null;
  return { items: await readHashes(redis, what, found.ids.map(keyOf), toRecord), hasMore: found.hasMore };
}
