import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DELIVERY_STAGES, type DeliverStage } from '@petrel/core';
import { Job, SendQueues } from '@petrel/queue';
import { ApiKeysStore, EmailsStore, Keys } from '@petrel/store';
import { startSmtpSink, uniquePrefix, waitUntil } from '@petrel/testing';
import {
  newEmail,
  storedContent,
  storedEvent,
  useStoreRedis,
} from '../../../packages/store/src/redis.fixture.js';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

const fx = useStoreRedis('retry-turn');

/** The first attempt to this address gets a 451, every later one a 250. */
const REFUSED_ONCE = 'later@example.test';
const CONCURRENCY = 2;
const GROUP_SIZE = 30;

/**
 * The delivery stages with the `send` of the emails in `held` stopped at a gate until the test
 * opens it, and the most sends run at once.
 */
function gatedSend(held: ReadonlySet<string>) {
  const atGate: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let running = 0;
  const seen = { peak: 0 };
  const stages = DELIVERY_STAGES.map((stage): DeliverStage => {
    if (stage.name !== 'send') return stage;
    return {
      ...stage,
      async run(ctx, deps) {
        seen.peak = Math.max(seen.peak, ++running);
        try {
          if (held.has(ctx.email.id)) {
            atGate.push(ctx.email.id);
            await gate;
          }
          return await stage.run(ctx, deps);
        } finally {
          running--;
        }
      },
    };
  });
  return { stages, atGate, open, seen };
}

describe('a due retry’s turn in the transactional lane', () => {
  it('is fetched while group jobs hold the delivery slots and sent before the rest of their queued emails', async () => {
    const sink = await startSmtpSink({ plan: { [REFUSED_ONCE]: [{ at: 'rcpt', code: 451 }, 'accept'] } });
    const prefix = uniquePrefix('retry-turn');
    const keys = new Keys(prefix);
    const teamId = await new ApiKeysStore(fx.redis, keys).createTeam('retry-turn');
    const emails = new EmailsStore(fx.redis, keys, 600_000, { statsRetentionMs: 600_000 });
    const retried = randomUUID();
    const groups = [0, 1].map(() => Array.from({ length: GROUP_SIZE }, () => randomUUID()));
    const queued = storedEvent('email.queued');
    await emails.stage(
      teamId,
      [retried, ...groups.flat()].map((id) =>
        newEmail(
          id,
          { ...queued, id: `${id}-queued`, teamId },
          { content: storedContent({ to: [id === retried ? REFUSED_ONCE : 'b@example.test'] }) },
        ),
      ),
      new Date(),
    );
    const queues = new SendQueues(fx.redis, { prefix: keys.bullPrefix() });
    const retryJob = () => Job.fromId(queues.queueOf('send', retried), retried);
    const gate = gatedSend(new Set(groups.flat()));
    const worker = await startWorker(
      loadWorkerConfig({
        REDIS_URL: fx.url,
        REDIS_KEY_PREFIX: prefix,
        SMTP_URL: sink.url,
        LOG_LEVEL: 'silent',
        WORKER_CONCURRENCY: String(CONCURRENCY),
        // the ladder's first wait, 60 s, outlasts the test: the retry is due when the test promotes it
        RETRY_TIME_SCALE: '1',
      }),
      { stages: gate.stages },
    );
    try {
      // the email's first attempt, in a job of its own: refused (451), its retry waits on the ladder
      await queues.enqueue('send', [{ teamId, emailId: retried }]);
      await waitUntil(async () => (await (await retryJob())?.getState()) === 'delayed', {
        timeoutMs: 30_000,
        message: 'the refused email’s job to wait for its retry',
      });
      // two requests' group jobs: their emails take both delivery slots (held at the gate) and
      // queue the rest in the lane's bound; the two jobs hold as many BullMQ slots as there are
      // delivery slots
      await queues.enqueue(
        'send',
        groups.map((emailIds) => ({ teamId, emailIds })),
      );
      await waitUntil(() => gate.atGate.length === CONCURRENCY, {
        timeoutMs: 30_000,
        message: 'both delivery slots held by group emails',
      });
      await waitUntil(
        async () => {
          const states = await Promise.all(groups.map((g) => queues.jobState('send', g[0]!, g[0]!)));
          return states.every((s) => s.state === 'active');
        },
        { timeoutMs: 30_000, message: 'both group jobs active' },
      );
      // the retry is due now
      await (await retryJob())!.promote();
      await waitUntil(async () => (await (await retryJob())?.getState()) === 'active', {
        timeoutMs: 30_000,
        message: 'the due retry’s job fetched while the group jobs hold the delivery slots',
      });
      gate.open();
      await sink.waitFor(1 + 2 * GROUP_SIZE, 60_000);
      await waitUntil(async () => (await retryJob()) === undefined, {
        timeoutMs: 30_000,
        message: 'the retry’s job completed',
      });

      const order = sink.messages.map((m) => m.parsed.messageId!.replace(/^<(.*)@x\.test>$/, '$1'));
      // every email once; the refused one on its second attempt
      expect([...order].sort()).toEqual([retried, ...groups.flat()].sort());
      expect(sink.attemptsFor(REFUSED_ONCE)).toBe(2);
      // the retry's 250 came before the last 20 emails of each group (in first-in, first-out
      // order it would come after all 60; without a BullMQ slot of its own it would wait for a
      // whole group to end)
      const at = order.indexOf(retried);
      for (const group of groups) {
        const after = group.filter((id) => order.indexOf(id) > at);
        expect(after.length).toBeGreaterThanOrEqual(20);
      }
      // the delivery bound held: never more sends at once than WORKER_CONCURRENCY
      expect(gate.seen.peak).toBe(CONCURRENCY);
    } finally {
      gate.open();
      await worker.close();
      await queues.close();
      await sink.stop();
    }
  }, 120_000);
});
