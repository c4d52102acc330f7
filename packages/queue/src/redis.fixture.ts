/**
 * Test fixture of the queue integration tests: a real redis-server for the file (AOF off) and one
 * connection to it as BullMQ wants it (`maxRetriesPerRequest: null`, so a worker's blocking
 * command is never given up on: https://docs.bullmq.io/guide/going-to-production). Not part of
 * the build (tsconfig excludes `*.fixture.ts`).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedis, type TestRedis } from '@petrel/testing';

/** Registers beforeAll/afterAll hooks; `redis` is set once beforeAll has run. */
export function useQueueRedis(): { readonly redis: Redis } {
  let server: TestRedis | undefined;
  const fx = {} as { redis: Redis };
  beforeAll(async () => {
    server = await startRedis({ appendonly: false });
    fx.redis = new Redis(server.url, { maxRetriesPerRequest: null });
  });
  afterAll(async () => {
    await fx.redis?.quit();
    await server?.stop();
  });
  return fx;
}
