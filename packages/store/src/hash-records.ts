/**
 * Reading records stored one hash per record: the hashes of `keys` in one pipeline (one round
 * trip, one slot), in that order, skipping any deleted meanwhile (an empty hash has no `id`).
 */
import type { RedisClient } from './redis.js';
import { execAll, pipeline } from './scripts.js';

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
