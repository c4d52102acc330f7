import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sendGroupJobId } from '@petrel/contracts';
import { DELIVERY_STAGES, type DeliverStage } from '@petrel/core';
import { Job, SendQueues } from '@petrel/queue';
import { ApiKeysStore, EmailsStore, Keys } from '@petrel/store';
import { startSmtpSink, uniquePrefix, waitUntil, type SmtpSink } from '@petrel/testing';
import { newEmail, storedEvent, useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { loadWorkerConfig } from './config.js';
import { startWorker } from './worker.js';

const fx = useStoreRedis('group-lock');

/** The delivery stages with `send` held at a gate: the emails that reached it, and its opening. */
function gatedSend() {
  const started: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const stages = DELIVERY_STAGES.map((stage): DeliverStage => {
    if (stage.name !== 'send') return stage;
    return {
      ...stage,
      async run(ctx, deps) {
        started.push(ctx.email.id);
        await gate;
        return stage.run(ctx, deps);
      },
    };
  });
  return { stages, started, open };
}

/** A group job of `count` emails, as acceptance leaves it (records, then the job), and the parts to watch it. */
async function groupOf(count: number) {
  const { redis } = fx;
  const prefix = uniquePrefix('group-lock');
  const keys = new Keys(prefix);
  const teamId = await new ApiKeysStore(redis, keys).createTeam('group-lock');
  const emails = new EmailsStore(redis, keys, 600_000, { statsRetentionMs: 600_000 });
  const ids = Array.from({ length: count }, () => randomUUID());
  const queued = storedEvent('email.queued');
  await emails.stage(
    teamId,
    ids.map((id) => newEmail(id, { ...queued, id: `${id}-queued`, teamId })),
    new Date(),
  );
  const queues = new SendQueues(redis, { prefix: keys.bullPrefix() });
  const jobId = sendGroupJobId(ids[0]!);
  const queue = queues.queueOf('send', ids[0]!);
  return {
    prefix,
    ids,
    queues,
    lockKey: queue.toKey(`${jobId}:lock`),
    /** BullMQ's mark that a stall check ran on the queue, kept for the checking worker's interval. */
    stallCheckKey: queue.toKey('stalled-check'),
    enqueue: () => queues.enqueue('send', [{ teamId, emailIds: ids }]),
    job: () => Job.fromId(queue, jobId),
    status: async (id: string) => (await emails.get(teamId, id))?.status,
  };
}

type Group = Awaited<ReturnType<typeof groupOf>>;

const workerOf = (group: Group, sink: SmtpSink, env: Record<string, string>, stages?: DeliverStage[]) =>
  startWorker(
    loadWorkerConfig({
      REDIS_URL: fx.url,
      REDIS_KEY_PREFIX: group.prefix,
      SMTP_URL: sink.url,
      LOG_LEVEL: 'silent',
      WORKER_CONCURRENCY: '2',
      ...env,
    }),
    { stages },
  );

/** The Message-IDs a sink got, as email ids. */
const sentTo = (sink: SmtpSink) =>
  sink.messages.map((m) => m.parsed.messageId!.replace(/^<(.*)@x\.test>$/, '$1'));

describe('a group job that loses its lock mid-group', () => {
  it.each([
    // another worker took the job (the lock holds its token)
    ['taken over', (g: Group) => fx.redis.set(g.lockKey, 'another-worker', 'PX', 600_000)],
    // the lock expired (Redis was away longer than WORKER_LOCK_DURATION_MS): no token at all
    ['expired', (g: Group) => fx.redis.del(g.lockKey)],
  ])(
    'lock %s: the worker sends only the emails already started, leaves the job where it is, and the next owner sends each other email once',
    async (_how, loseLock) => {
      const sinkA = await startSmtpSink();
      const sinkB = await startSmtpSink();
      const group = await groupOf(8);
      const gate = gatedSend();
      // A: a lock and stall check far longer than the test, so only the test takes the lock away
      const a = await workerOf(
        group,
        sinkA,
        { WORKER_LOCK_DURATION_MS: '600000', WORKER_STALLED_INTERVAL_MS: '600000' },
        gate.stages,
      );
      let aOpen = true;
      let b: Awaited<ReturnType<typeof workerOf>> | undefined;
      try {
        await group.enqueue();
        // two emails (WORKER_CONCURRENCY) are past their lock check, held before SMTP
        await waitUntil(() => gate.started.length === 2, {
          timeoutMs: 30_000,
          message: 'two emails of the group started',
        });
        await loseLock(group);
        const startedBeforeLoss = [...gate.started].sort();
        gate.open();
        // close() waits for the group's attempt to end: with the check, once the two started end
        await a.close();
        aOpen = false;
        // nothing but the two started before the loss reached A's SMTP stage, or the relay
        expect([...gate.started].sort()).toEqual(startedBeforeLoss);
        expect(sentTo(sinkA).sort()).toEqual(startedBeforeLoss);
        const rest = group.ids.filter((id) => !startedBeforeLoss.includes(id));
        for (const id of rest) expect(await group.status(id)).toBe('queued');
        // not handed back: still active, neither failed nor retried, no attempt counted
        const job = await group.job();
        expect(await job?.getState()).toBe('active');
        expect(job?.attemptsMade).toBe(0);

        // the next owner: the lock gone and A's stall check interval over (BullMQ keeps one
        // interval per queue, whichever worker checked), the stall check hands the job to B
        await fx.redis.del(group.lockKey, group.stallCheckKey);
        b = await workerOf(group, sinkB, { WORKER_STALLED_INTERVAL_MS: '500' });
        await waitUntil(async () => (await group.job()) === undefined, {
          timeoutMs: 30_000,
          message: 'the group job to complete on worker B',
        });
        expect(sentTo(sinkB).sort()).toEqual(rest.sort());
        for (const id of group.ids) expect(await group.status(id)).toBe('delivered');
      } finally {
        gate.open();
        await b?.close();
        if (aOpen) await a.close();
        await group.queues.close();
        await sinkA.stop();
        await sinkB.stop();
      }
    },
    60_000,
  );
});
