/**
 * SendQueues.jobState against a real redis-server: what the stuck-email watchdog reads of a
 * send job — its state in either shard layout, the reason of a failed job, `missing` for a job
 * the queues do not hold.
 */
import { describe, expect, it } from 'vitest';
import { uniquePrefix, waitUntil } from '@petrel/testing';
import { useQueueRedis } from './redis.fixture.js';
import { SendQueues, UnrecoverableError, createSendWorkers } from './send-queues.js';

const fx = useQueueRedis();

describe('SendQueues.jobState', () => {
  it('waiting, delayed, failed with its reason, missing; the previous layout is searched too', async () => {
    const prefix = uniquePrefix('job-state');
    const before = new SendQueues(fx.redis, { prefix, shards: 1 });
    await before.enqueue('send', [{ teamId: 't', emailId: 'old-layout' }]);
    const queues = new SendQueues(fx.redis, { prefix, shards: 2, previousShards: 1 });
    try {
      await queues.enqueue('send', [
        { teamId: 't', emailId: 'now' },
        { teamId: 't', emailId: 'later', delayMs: 60_000 },
      ]);
      expect(await queues.jobState('send', 'now')).toEqual({ state: 'waiting' });
      expect(await queues.jobState('send', 'later')).toEqual({ state: 'delayed' });
      expect(await queues.jobState('send', 'old-layout')).toEqual({ state: 'waiting' });
      expect(await queues.jobState('send', 'never')).toEqual({ state: 'missing' });
      expect(await queues.jobState('broadcast', 'now')).toEqual({ state: 'missing' });

      const workers = createSendWorkers(
        'send',
        async (job) => {
          if ('emailId' in job.data && job.data.emailId === 'now')
            throw new UnrecoverableError('cannot be built');
        },
        { connection: fx.redis, prefix, shards: 2, previousShards: 1, concurrency: 2 },
      );
      try {
        await waitUntil(async () => (await queues.jobState('send', 'now')).state === 'failed', {
          message: 'the job to fail',
        });
        expect(await queues.jobState('send', 'now')).toEqual({
          state: 'failed',
          failedReason: 'cannot be built',
        });
        // a completed job is removed: the watchdog sees it as missing
        await waitUntil(async () => (await queues.jobState('send', 'old-layout')).state === 'missing', {
          message: 'the old layout job to complete',
        });
      } finally {
        await Promise.all(workers.map((w) => w.close()));
      }
    } finally {
      await queues.close();
      await before.close();
    }
  });
});
