/**
 * The key that signs unsubscribe links, when the deployment configures none: generated once
 * (SET NX, so concurrent first starts agree on one) and kept in Redis, so every API and worker
 * process signs and checks with the same key and links stay valid across restarts.
 */
import { randomBytes } from 'node:crypto';
import type { Keys } from './keys.js';
import type { RedisClient } from './redis.js';

export async function unsubscribeSecret(
  redis: RedisClient,
  keys: Keys,
  configured: string | undefined,
): Promise<string> {
  if (configured) return configured;
  const key = keys.unsubscribeSecret();
  await redis.set(key, randomBytes(32).toString('base64url'), 'NX');
  const secret = await redis.get(key);
  if (!secret) throw new Error(`${key} vanished right after it was written`);
  return secret;
}
