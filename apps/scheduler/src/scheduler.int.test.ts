import { describe, expect, it } from 'vitest';
import { ApiKeysStore, Keys } from '@petrel/store';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { emailContent, uniquePrefix, waitUntil } from '@petrel/testing';
import { loadSchedulerConfig } from './config.js';
import { openRuntime } from '@petrel/runtime';
import { startScheduler } from './scheduler.js';

const db = useStoreRedis('scheduler');

describe('scheduler housekeeping on Redis', () => {
  it('trims expired ids from every team listing each interval and keeps the rest', async () => {
    const prefix = uniquePrefix('scheduler');
    const keys = new Keys(prefix);
    const teams = new ApiKeysStore(db.redis, keys);
    const [t1, t2] = [await teams.createTeam('a'), await teams.createTeam('b')];
    const now = Date.now();
    const day = 86_400_000;
    await db.redis.zadd(keys.emails(t1), String(now - 31 * day), 'expired', String(now - day), 'recent');
    await db.redis.zadd(keys.emails(t2), String(now - 45 * day), 'expired-too');

    const scheduler = await startScheduler(
      loadSchedulerConfig({
        REDIS_URL: db.url,
        REDIS_KEY_PREFIX: prefix,
        EMAIL_RETENTION_DAYS: '30',
        HOUSEKEEPING_INTERVAL_S: '1',
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      expect(await scheduler.ready()).toBe(true);
      const sizes = async () => [
        await db.redis.zcard(keys.emails(t1)),
        await db.redis.zcard(keys.emails(t2)),
      ];
      await waitUntil(async () => (await sizes()).join() === '1,0', {
        message: 'the expired listing entries to be trimmed',
      });
      expect(await db.redis.zrange(keys.emails(t1), 0, '-1')).toEqual(['recent']);
    } finally {
      await scheduler.close();
    }
  });
});

describe("the scheduler's email store", () => {
  it('keeps the hourly counters its events write for DASHBOARD_STATS_RETENTION_DAYS', async () => {
    const HOUR = 3_600_000;
    const DAY = 86_400_000;
    const prefix = uniquePrefix('scheduler-stats');
    const keys = new Keys(prefix);
    const config = loadSchedulerConfig({
      REDIS_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      DASHBOARD_STATS_RETENTION_DAYS: '3',
      LOG_LEVEL: 'silent',
    });
    // the email and watchdog stores as the scheduler's runtime builds them
    const rt = openRuntime(config, 'scheduler-test');
    const { emails, watchdog } = rt.stores;
    const event = (type: 'email.queued' | 'email.delivered') => ({
      id: `${type}-1`,
      type,
      created_at: new Date().toISOString(),
      teamId: 'team',
      data: {},
    });
    const before = Date.now();
    await emails.stage(
      'team',
      [
        {
          id: 'e1',
          content: emailContent(),
          status: 'queued',
          lane: 'send',
          dueMs: 0,
          messageId: '<e1@acme.test>',
          event: event('email.queued'),
        },
      ],
      new Date(before),
    );
    // a counted event, recorded through the watchdog's store as the watchdog records its own
    expect(await watchdog.recordEvent('team', 'e1', 'delivered', event('email.delivered'))).toBe('moved');
    const after = Date.now();
    // the hour it was counted in (the clock may have crossed into the next one meanwhile)
    const hours = [...new Set([before, after].map((t) => Math.floor(t / HOUR) * HOUR))];
    const counted = [];
    for (const hour of hours) {
      const key = keys.emailStats('team', hour);
      if ((await db.redis.hget(key, 'send:delivered')) === '1')
        counted.push({ hour, expiresAt: Number(await db.redis.call('PEXPIRETIME', key)) });
    }
    await rt.close();
    expect(counted).toHaveLength(1);
    expect(counted[0]!.expiresAt).toBe(counted[0]!.hour + HOUR + 3 * DAY);
  });
});
