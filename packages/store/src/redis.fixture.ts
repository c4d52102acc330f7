/**
 * Test fixture for the store's integration tests: a real redis-server (local, AOF off) for the
 * file, one connection, and a key layout under a unique prefix so files never share keys.
 * Not part of the build (tsconfig excludes `*.fixture.ts`).
 */
import { afterAll, beforeAll } from 'vitest';
import { startRedis, uniquePrefix, type TestRedis } from '@petrel/testing';
import { createRedis, type Redis } from './redis.js';
import { Keys } from './keys.js';

export interface StoreFixture {
  readonly redis: Redis;
  readonly keys: Keys;
}

/** Registers beforeAll/afterAll hooks; the fields are set once beforeAll has run. */
export function useStoreRedis(prefixName: string): StoreFixture {
  let server: TestRedis | undefined;
  const fx = {} as { redis: Redis; keys: Keys };
  beforeAll(async () => {
    server = await startRedis({ appendonly: false });
    fx.redis = createRedis(server.url);
    fx.keys = new Keys(uniquePrefix(prefixName));
  });
  afterAll(async () => {
    await fx.redis?.quit();
    await server?.stop();
  });
  return fx;
}
