/**
 * The fan-out queue against a real redis-server: a broadcast's job is delayed until due, is one
 * job however often it is scheduled, and unschedule removes it while it waits — and is harmless
 * when there is none or when it is already running.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { broadcastFanoutJobId } from '@petrel/contracts';
import { uniquePrefix, waitUntil } from '@petrel/testing';
import { useQueueRedis } from './redis.fixture.js';
import { BroadcastFanoutQueue, createBroadcastFanoutWorker } from './fanout-scheduler.js';

const fx = useQueueRedis();
let queue: BroadcastFanoutQueue;
const prefix = uniquePrefix('fanout-queue');
const NOW = 1_900_000_000_000;

beforeAll(async () => {
  queue = new BroadcastFanoutQueue(fx.redis, { prefix, clock: { now: () => NOW } });
  await queue.ready();
});

afterAll(async () => {
  await queue?.close();
});

describe('BroadcastFanoutQueue', () => {
  it('schedules one delayed job per broadcast (id from the broadcast), removed by unschedule', async () => {
    await queue.schedule('t1', 'b1', NOW + 60_000);
    await queue.schedule('t1', 'b1', NOW + 120_000);
    const job = await queue.queue.getJob(broadcastFanoutJobId('t1', 'b1'));
    expect(job?.data).toEqual({ v: 1, teamId: 't1', broadcastId: 'b1' });
    expect(job?.opts.delay).toBe(60_000);
    expect(await job?.getState()).toBe('delayed');
    expect(await queue.queue.getDelayedCount()).toBe(1);

    await queue.unschedule('t1', 'b1');
    expect(await queue.queue.getJob(broadcastFanoutJobId('t1', 'b1'))).toBeUndefined();
    await queue.unschedule('t1', 'b1'); // none: harmless
    await queue.unschedule('t1', 'never-scheduled');
  });

  it('a due time in the past runs at once; unschedule leaves a running fan-out alone', async () => {
    const started: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const worker = createBroadcastFanoutWorker(
      async (job) => {
        started.push(job.data.broadcastId);
        await held;
      },
      { connection: fx.redis, prefix, concurrency: 1 },
    );
    try {
      await queue.schedule('t2', 'b2', NOW - 5_000);
      const job = await queue.queue.getJob(broadcastFanoutJobId('t2', 'b2'));
      expect(job?.opts.delay).toBe(0);
      await waitUntil(() => started.includes('b2') || undefined, { message: 'the fan-out to start' });
      await queue.unschedule('t2', 'b2');
      expect(await (await queue.queue.getJob(broadcastFanoutJobId('t2', 'b2')))?.getState()).toBe('active');
      release();
      await waitUntil(
        async () => ((await queue.queue.getJob(broadcastFanoutJobId('t2', 'b2'))) ? undefined : true),
        {
          message: 'the finished job to be removed',
        },
      );
    } finally {
      release();
      await worker.close();
    }
  });
});
