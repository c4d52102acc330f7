import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeysStore, Keys, createRedis, type RedisClient } from '@petrel/store';
import { startRedis, uniquePrefix, waitUntil, type TestRedis } from '@petrel/testing';
import { loadSchedulerConfig } from './config.js';
import { startScheduler } from './scheduler.js';

let server: TestRedis;
let redis: RedisClient;

beforeAll(async () => {
  server = await startRedis({ appendonly: false });
  redis = createRedis(server.url);
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
});

describe('scheduler housekeeping on Redis', () => {
  it('trims expired ids from every team listing each interval and keeps the rest', async () => {
    const prefix = uniquePrefix('scheduler');
    const keys = new Keys(prefix);
    const teams = new ApiKeysStore(redis, keys);
    const [t1, t2] = [await teams.createTeam('a'), await teams.createTeam('b')];
    const now = Date.now();
    const day = 86_400_000;
    await redis.zadd(keys.emails(t1), String(now - 31 * day), 'expired', String(now - day), 'recent');
    await redis.zadd(keys.emails(t2), String(now - 45 * day), 'expired-too');

    const scheduler = await startScheduler(
      loadSchedulerConfig({
        REDIS_URL: server.url,
        REDIS_KEY_PREFIX: prefix,
        EMAIL_RETENTION_DAYS: '30',
        HOUSEKEEPING_INTERVAL_S: '1',
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      expect(await scheduler.ready()).toBe(true);
      const sizes = async () => [await redis.zcard(keys.emails(t1)), await redis.zcard(keys.emails(t2))];
      await waitUntil(async () => (await sizes()).join() === '1,0', {
        message: 'the expired listing entries to be trimmed',
      });
      expect(await redis.zrange(keys.emails(t1), 0, '-1')).toEqual(['recent']);
    } finally {
      await scheduler.close();
    }
  });
});
