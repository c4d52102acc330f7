/**
 * ioredis connection factories. Two profiles:
 * - `command`: for request handlers and stores. Fails a command fast when Redis is down
 *   (the API then answers 503 instead of hanging) and reconnects on its own.
 * - `blocking`: for BullMQ workers (`maxRetriesPerRequest: null`, as BullMQ requires).
 */
import { Redis, type RedisOptions } from 'ioredis';

export type RedisProfile = 'command' | 'blocking';

export function createRedis(
  url: string,
  profile: RedisProfile = 'command',
  name?: string,
  /** Connection errors (ioredis reconnects by itself); apps log them. */
  onError: (err: Error) => void = () => undefined,
): Redis {
  const common: RedisOptions = {
    enableReadyCheck: true,
    connectionName: name,
    retryStrategy: (times) => Math.min(times * 100, 2_000),
    lazyConnect: false,
  };
  const opts: RedisOptions =
    profile === 'blocking'
      ? { ...common, maxRetriesPerRequest: null }
      : { ...common, maxRetriesPerRequest: 1, enableOfflineQueue: true, commandTimeout: 5_000 };
  const redis = new Redis(url, opts);
  redis.on('error', onError);
  return redis;
}

/** True when Redis answers PING within `timeoutMs`. */
export async function pingRedis(redis: Redis, timeoutMs = 1_000): Promise<boolean> {
  try {
    const res = await Promise.race([
      redis.ping(),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), timeoutMs).unref()),
    ]);
    return res === 'PONG';
  } catch {
    return false;
  }
}

/**
 * True for the errors ioredis raises while Redis cannot take commands (down, restarting, out of
 * memory — also inside a transaction it then aborts —, refusing writes after a failed persist):
 * the caller may retry later; nothing is wrong with the command itself.
 */
export function isRedisUnavailable(err: unknown): boolean {
  const e = (err ?? {}) as { message?: unknown; code?: unknown; previousErrors?: unknown };
  // A transaction Redis refused to queue (EXECABORT) carries the errors of its commands, e.g. OOM.
  if (Array.isArray(e.previousErrors) && e.previousErrors.some((p) => isRedisUnavailable(p))) return true;
  const m = typeof e.message === 'string' ? e.message : '';
  return (
    /Connection is closed|Stream isn't writeable|max retries per request|Command timed out|ECONNREFUSED|ECONNRESET|OOM command not allowed|MISCONF|LOADING/i.test(
      m,
    ) ||
    e.code === 'ECONNREFUSED' ||
    e.code === 'ECONNRESET'
  );
}

export type { Redis };
