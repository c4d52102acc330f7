import { describe, expect, it, onTestFinished } from 'vitest';
import { sendQueueNames } from '@petrel/contracts';
import type { BroadcastContent } from '@petrel/core';
import { BroadcastFanoutQueue, SendQueues } from '@petrel/queue';
import { ApiKeysStore, BroadcastsStore, ContactsStore, Keys, SegmentsStore } from '@petrel/store';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { metrics } from '@petrel/observability';
import { broadcastContent, uniquePrefix, waitUntil } from '@petrel/testing';
import { loadSchedulerConfig } from './config.js';
import { startScheduler } from './scheduler.js';

const db = useStoreRedis('fanout');

const content = (segmentId: string): BroadcastContent =>
  broadcastContent({ segment_id: segmentId, html: '<p>Hi {{{contact.first_name|there}}}</p>' });

async function world(contacts: number, env: Record<string, string> = {}) {
  const prefix = uniquePrefix('fanout');
  const keys = new Keys(prefix);
  const teamId = await new ApiKeysStore(db.redis, keys).createTeam('t');
  const segment = await new SegmentsStore(db.redis, keys).create(teamId, 'all');
  const rows = Array.from({ length: contacts }, (_, i) => ({
    email: `u${i}@example.test`,
    unsubscribed: i % 10 === 0,
  }));
  await new ContactsStore(db.redis, keys).upsertMany(teamId, rows, {
    onConflict: 'upsert',
    segments: [segment.id],
    topics: [],
  });
  const broadcasts = new BroadcastsStore(db.redis, keys);
  const launchScheduler = () =>
    startScheduler(
      loadSchedulerConfig({ REDIS_URL: db.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'silent', ...env }),
    );
  let scheduler = await launchScheduler();
  const fanoutQueue = new BroadcastFanoutQueue(db.redis, { prefix: keys.bullPrefix() });
  const sendQueues = new SendQueues(db.redis, { prefix: keys.bullPrefix() });
  onTestFinished(async () => {
    await scheduler.close();
    await fanoutQueue.close();
    await sendQueues.close();
  });
  return {
    keys,
    teamId,
    segmentId: segment.id,
    broadcasts,
    fanoutQueue,
    sendQueues,
    /** The broadcast's record once it is `sent`. */
    sent: (id: string, timeoutMs: number) =>
      waitUntil(
        async () => {
          const r = await broadcasts.get(teamId, id);
          return r?.status === 'sent' ? r : undefined;
        },
        { timeoutMs, message: 'the broadcast to be sent' },
      ),
    /** Stops this process's scheduler (SIGTERM's path) and starts another. */
    async restartScheduler() {
      await scheduler.close();
      scheduler = await launchScheduler();
    },
    stopScheduler: () => scheduler.close(),
    async broadcastLaneWaiting() {
      return (await sendQueues.counts()).broadcast.waiting ?? 0;
    },
  };
}

describe('the scheduler runs broadcast fan-outs', () => {
  it('a due broadcast becomes one broadcast-lane job per eligible contact, then sent', async () => {
    const w = await world(2_345);
    const b = await w.broadcasts.create(w.teamId, content(w.segmentId));
    const due = Date.now();
    expect((await w.broadcasts.schedule(w.teamId, b.id, due)).ok).toBe(true);
    await w.fanoutQueue.schedule(w.teamId, b.id, due);
    const done = await w.sent(b.id, 30_000);
    expect(done.counts).toEqual({ total: 2_345, enqueued: 2_110, skipped: 235 });
    expect(done.sent_at).not.toBeNull();
    expect(await db.redis.zcard(w.keys.emails(w.teamId))).toBe(2_110);
    expect(await w.broadcastLaneWaiting()).toBe(2_110);
  });

  it('a broadcast canceled before its time sends nothing when its job runs', async () => {
    const w = await world(50);
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
    expect(await db.redis.zcard(w.keys.emails(w.teamId))).toBe(0);
  });

  it('a scheduler shutting down mid fan-out pauses it at a page; another scheduler finishes it, every contact once', async () => {
    const w = await world(30_000);
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
    const done = await w.sent(b.id, 60_000);
    expect(done.counts).toEqual({ total: 30_000, enqueued: 27_000, skipped: 3_000 });
    expect(await db.redis.zcard(w.keys.emails(w.teamId))).toBe(27_000);
    expect(await w.broadcastLaneWaiting()).toBe(27_000);
  });

  it('paces a fan-out while transactional jobs wait, and goes back to full pages once they are gone', async () => {
    // paced the most at 20 transactional jobs: 10 contacts per page, 100 ms before each — 4,000
    // contacts would take 400 paced pages (40 s), so the fan-out is still running when the
    // backlog is removed, on any machine
    const w = await world(5_000, {
      FANOUT_PACE_IDLE_AT: '0',
      FANOUT_PACE_BUSY_AT: '20',
      FANOUT_PACE_MIN_PAGE_SIZE: '10',
      FANOUT_PACE_MAX_DELAY_MS: '100',
    });
    const pages = async () => {
      const { values } = await metrics.fanoutPages().get();
      const of = (pace: string) => values.find((v) => v.labels.pace === pace)?.value ?? 0;
      return { full: of('full'), paced: of('paced') };
    };
    const delay = async () => (await metrics.fanoutPaceDelay().get()).values[0]?.value;
    const before = await pages();
    // a transactional backlog no worker takes: 30 jobs waiting on the send lane
    const backlog = Array.from({ length: 30 }, (_, i) => ({ teamId: w.teamId, emailId: `tx-${i}` }));
    await w.sendQueues.enqueue('send', backlog);
    const b = await w.broadcasts.create(w.teamId, content(w.segmentId));
    await w.broadcasts.schedule(w.teamId, b.id, Date.now());
    await w.fanoutQueue.schedule(w.teamId, b.id, Date.now());
    const slowed = await waitUntil(
      async () => {
        const p = await pages();
        return p.paced - before.paced >= 2 ? p : undefined;
      },
      { timeoutMs: 30_000, intervalMs: 5, message: 'paced fan-out pages' },
    );
    expect(await delay()).toBe(100);
    // not one full page was decided while the backlog waited (the first page is not decided)
    expect(slowed.full).toBe(before.full);
    const during = (await w.broadcasts.get(w.teamId, b.id))!;
    expect(during.status).toBe('queued');
    expect(during.counts.total).toBeLessThan(5_000);
    // the transactional lane drains: the next decisions are full speed again
    const sendLane = sendQueueNames('send', 1);
    await Promise.all(w.sendQueues.queues.filter((q) => sendLane.includes(q.name)).map((q) => q.drain()));
    expect(await w.sendQueues.busy('send')).toBe(0);
    const done = await w.sent(b.id, 60_000);
    expect(done.counts).toEqual({ total: 5_000, enqueued: 4_500, skipped: 500 });
    const after = await pages();
    expect(after.full).toBeGreaterThan(before.full);
    expect(await delay()).toBe(0);
    expect(await w.broadcastLaneWaiting()).toBe(4_500);
  });
});
