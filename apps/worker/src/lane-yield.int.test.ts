import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendQueueNames } from '@petrel/contracts';
import { metrics } from '@petrel/observability';
import { SendQueues } from '@petrel/queue';
import { Keys, createRedis, type RedisClient } from '@petrel/store';
import {
  startRedis,
  startSmtpSink,
  uniquePrefix,
  waitUntil,
  type SmtpSink,
  type TestRedis,
} from '@petrel/testing';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

let server: TestRedis;
let redis: RedisClient;
let sink: SmtpSink;

beforeAll(async () => {
  server = await startRedis({ appendonly: false });
  redis = createRedis(server.url);
  sink = await startSmtpSink();
});

afterAll(async () => {
  await redis?.quit();
  await server?.stop();
  await sink?.stop();
});

const SHARDS = 2;

async function world(env: Record<string, string>) {
  const prefix = uniquePrefix('lane-yield');
  const keys = new Keys(prefix);
  const worker = await startWorker(
    loadWorkerConfig({
      REDIS_URL: server.url,
      REDIS_KEY_PREFIX: prefix,
      SMTP_URL: sink.url,
      LOG_LEVEL: 'silent',
      QUEUE_SHARDS: String(SHARDS),
      ...env,
    }),
  );
  const queues = new SendQueues(redis, { prefix: keys.bullPrefix(), shards: SHARDS });
  const broadcastQueues = sendQueueNames('broadcast', SHARDS);
  const broadcastWorkers = worker.workers.filter((w) => broadcastQueues.includes(w.name));
  return {
    queues,
    /** What the gauge says and what the broadcast lane's BullMQ workers run at once. */
    async lane() {
      const gauge = (await metrics.broadcastLaneConcurrency().get()).values[0]?.value;
      return { gauge, workers: broadcastWorkers.map((w) => w.concurrency) };
    },
    /** `n` transactional jobs (emails no store holds: a worker that takes one finishes it at once). */
    enqueueTransactional: (n: number) =>
      queues.enqueue(
        'send',
        Array.from({ length: n }, () => ({ teamId: 'team-1', emailId: randomUUID() })),
      ),
    async close() {
      await worker.close();
      await queues.close();
    },
  };
}

describe('the broadcast lane yields to transactional jobs', () => {
  it('runs fewer broadcast jobs at once while transactional jobs wait, down to its floor, and all of them again once the lane drains', async () => {
    // WORKER_SEND_RATE=1: the transactional lane starts one job a second, so what the test
    // enqueues stays waiting until the test removes it — the backlog is the test's to end
    const w = await world({
      WORKER_SEND_RATE: '1',
      WORKER_BROADCAST_YIELD: 'true',
      WORKER_BROADCAST_CONCURRENCY: '12',
      WORKER_BROADCAST_MIN_CONCURRENCY: '2',
      WORKER_BROADCAST_YIELD_IDLE_AT: '0',
      WORKER_BROADCAST_YIELD_BUSY_AT: '10',
      WORKER_BROADCAST_YIELD_INTERVAL_MS: '20',
    });
    try {
      // no transactional job: the full concurrency, split over the lane's two shards
      await waitUntil(async () => (await w.lane()).gauge === 12, {
        message: 'the full broadcast concurrency',
      });
      expect((await w.lane()).workers).toEqual([6, 6]);

      // a few waiting: lower, in proportion (not yet the floor)
      await w.enqueueTransactional(5);
      const partial = await waitUntil(
        async () => {
          const l = await w.lane();
          return l.gauge !== undefined && l.gauge > 2 && l.gauge < 12 ? l : undefined;
        },
        { message: 'a broadcast concurrency between the floor and the full one' },
      );
      expect(partial.workers.reduce((a, b) => a + b, 0)).toBe(partial.gauge);

      // a backlog beyond WORKER_BROADCAST_YIELD_BUSY_AT: the floor, never 0
      await w.enqueueTransactional(40);
      await waitUntil(async () => (await w.lane()).gauge === 2, {
        message: 'the broadcast lane at its floor',
      });
      expect((await w.lane()).workers).toEqual([1, 1]);
      expect(await w.queues.busy('send')).toBeGreaterThanOrEqual(10);

      // the transactional lane drains: back to the full concurrency on the next reading
      const sendLane = sendQueueNames('send', SHARDS);
      await Promise.all(w.queues.queues.filter((q) => sendLane.includes(q.name)).map((q) => q.drain()));
      await waitUntil(async () => (await w.queues.busy('send')) === 0, {
        message: 'the transactional lane to drain',
      });
      await waitUntil(async () => (await w.lane()).gauge === 12, {
        message: 'the full broadcast concurrency again',
      });
      expect((await w.lane()).workers).toEqual([6, 6]);
    } finally {
      await w.close();
    }
  });
});
