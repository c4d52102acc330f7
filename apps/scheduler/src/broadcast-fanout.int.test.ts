import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BroadcastContent } from '@petrel/core';
import { BroadcastFanoutQueue, SendQueues } from '@petrel/queue';
import {
  ApiKeysStore,
  BroadcastsStore,
  ContactsStore,
  Keys,
  SegmentsStore,
  createRedis,
  type RedisClient,
} from '@petrel/store';
import { broadcastContent, startRedis, uniquePrefix, waitUntil, type TestRedis } from '@petrel/testing';
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

const content = (segmentId: string): BroadcastContent =>
  broadcastContent({ segment_id: segmentId, html: '<p>Hi {{{contact.first_name|there}}}</p>' });

async function world(contacts: number) {
  const prefix = uniquePrefix('fanout');
  const keys = new Keys(prefix);
  const teamId = await new ApiKeysStore(redis, keys).createTeam('t');
  const segment = await new SegmentsStore(redis, keys).create(teamId, 'all');
  const rows = Array.from({ length: contacts }, (_, i) => ({
    email: `u${i}@example.test`,
    unsubscribed: i % 10 === 0,
  }));
  await new ContactsStore(redis, keys).upsertMany(teamId, rows, {
    onConflict: 'upsert',
    segments: [segment.id],
    topics: [],
  });
  const broadcasts = new BroadcastsStore(redis, keys);
  const launchScheduler = () =>
    startScheduler(
      loadSchedulerConfig({ REDIS_URL: server.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent' }),
    );
  let scheduler = await launchScheduler();
  const fanoutQueue = new BroadcastFanoutQueue(redis, { prefix: keys.bullPrefix() });
  const sendQueues = new SendQueues(redis, { prefix: keys.bullPrefix() });
  return {
    keys,
    teamId,
    segmentId: segment.id,
    broadcasts,
    fanoutQueue,
    /** Stops this process's scheduler (SIGTERM's path) and starts another. */
    async restartScheduler() {
      await scheduler.close();
      scheduler = await launchScheduler();
    },
    stopScheduler: () => scheduler.close(),
    async broadcastLaneWaiting() {
      return (await sendQueues.counts()).broadcast.waiting ?? 0;
    },
    async close() {
      await scheduler.close();
      await fanoutQueue.close();
      await sendQueues.close();
    },
  };
}

describe('the scheduler runs broadcast fan-outs', () => {
  it('a due broadcast becomes one broadcast-lane job per eligible contact, then sent', async () => {
    const w = await world(2_345);
    try {
      const b = await w.broadcasts.create(w.teamId, content(w.segmentId));
      const due = Date.now();
      expect((await w.broadcasts.schedule(w.teamId, b.id, due)).ok).toBe(true);
      await w.fanoutQueue.schedule(w.teamId, b.id, due);
      const done = await waitUntil(
        async () => {
          const r = await w.broadcasts.get(w.teamId, b.id);
          return r?.status === 'sent' ? r : undefined;
        },
        { timeoutMs: 30_000, message: 'the broadcast to be sent' },
      );
      expect(done.counts).toEqual({ total: 2_345, enqueued: 2_110, skipped: 235 });
      expect(done.sent_at).not.toBeNull();
      expect(await redis.zcard(w.keys.emails(w.teamId))).toBe(2_110);
      expect(await w.broadcastLaneWaiting()).toBe(2_110);
    } finally {
      await w.close();
    }
  });

  it('a broadcast canceled before its time sends nothing when its job runs', async () => {
    const w = await world(50);
    try {
      const b = await w.broadcasts.create(w.teamId, content(w.segmentId));
      await w.broadcasts.schedule(w.teamId, b.id, Date.now());
      expect((await w.broadcasts.cancel(w.teamId, b.id)).ok).toBe(true);
      await w.fanoutQueue.schedule(w.teamId, b.id, Date.now());
      await waitUntil(
        async () =>
          (await w.fanoutQueue.queue.getJobCounts('waiting', 'active', 'delayed')).waiting === 0 &&
          (await w.fanoutQueue.queue.getActiveCount()) === 0,
        { timeoutMs: 10_000, message: 'the fan-out job to run' },
      );
      expect((await w.broadcasts.get(w.teamId, b.id))!.status).toBe('canceled');
      expect(await redis.zcard(w.keys.emails(w.teamId))).toBe(0);
    } finally {
      await w.close();
    }
  });

  it('a scheduler shutting down mid fan-out pauses it at a page; another scheduler finishes it, every contact once', async () => {
    const w = await world(30_000);
    try {
      const b = await w.broadcasts.create(w.teamId, content(w.segmentId));
      await w.broadcasts.schedule(w.teamId, b.id, Date.now());
      await w.fanoutQueue.schedule(w.teamId, b.id, Date.now());
      await waitUntil(async () => ((await w.broadcasts.get(w.teamId, b.id))?.counts.total ?? 0) > 0, {
        timeoutMs: 30_000,
        intervalMs: 5,
        message: 'the fan-out to begin',
      });
      await w.stopScheduler();
      const paused = (await w.broadcasts.get(w.teamId, b.id))!;
      expect(paused.status).toBe('queued');
      expect(paused.counts.total).toBeLessThan(30_000);
      await w.restartScheduler();
      const done = await waitUntil(
        async () => {
          const r = await w.broadcasts.get(w.teamId, b.id);
          return r?.status === 'sent' ? r : undefined;
        },
        { timeoutMs: 60_000, message: 'the broadcast to be sent' },
      );
      expect(done.counts).toEqual({ total: 30_000, enqueued: 27_000, skipped: 3_000 });
      expect(await redis.zcard(w.keys.emails(w.teamId))).toBe(27_000);
      expect(await w.broadcastLaneWaiting()).toBe(27_000);
    } finally {
      await w.close();
    }
  });
});
