import { describe, expect, it } from 'vitest';
import { ApiKeysStore, EmailsStore, Keys } from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import { emailContent, uniquePrefix, waitUntil } from '@petrel/testing';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { loadSchedulerConfig } from './config.js';
import { startScheduler } from './scheduler.js';

const fx = useStoreRedis('relay');

describe('scheduler outbox relay on Redis', () => {
  it('enqueues the jobs of an acceptance interrupted after its records, once the grace has passed', async () => {
    const { redis } = fx;
    const prefix = uniquePrefix('relay');
    const keys = new Keys(prefix);
    const teamId = await new ApiKeysStore(redis, keys).createTeam('a');
    // what a process killed after the first step of acceptance leaves: records + outbox entries
    await new EmailsStore(redis, keys, 60_000, { statsRetentionMs: 60_000 }).stage(
      teamId,
      ['e1', 'e2'].map((id) => ({
        id,
        content: emailContent(),
        status: 'queued' as const,
        lane: 'send' as const,
        dueMs: 0,
        messageId: `<${id}@acme.test>`,
        event: { id, type: 'email.queued' as const, created_at: '', teamId, data: {} },
      })),
      new Date(),
    );
    const queues = new SendQueues(redis, { prefix: keys.bullPrefix() });
    const scheduler = await startScheduler(
      loadSchedulerConfig({
        REDIS_URL: fx.url,
        REDIS_KEY_PREFIX: prefix,
        OUTBOX_GRACE_MS: '300',
        LOG_LEVEL: 'silent',
      }),
    );
    try {
      await waitUntil(async () => (await redis.zcard(keys.outbox(teamId))) === 0, {
        message: 'the outbox to be relayed',
      });
      for (const id of ['e1', 'e2']) {
        expect((await queues.queueOf('send', id).getJob(id))?.data).toEqual({ v: 1, teamId, emailId: id });
      }
    } finally {
      await scheduler.close();
      await queues.close();
    }
  });
});
