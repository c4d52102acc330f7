/**
 * The sharded send queues against a real redis-server: where jobs land, what a repeated enqueue
 * does, cancel/reschedule across a change of QUEUE_SHARDS, and that such a change strands no job
 * (workers with QUEUE_SHARDS_PREVIOUS consume both layouts).
 */
import { Queue } from 'bullmq';
import { v7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LANE_QUEUE,
  SEND_LANES,
  sendQueueNames,
  type EmailJobSpec,
  type QueueLayout,
  type SendQueueJob,
  type SendLane,
} from '@petrel/contracts';
import { uniquePrefix, waitUntil } from '@petrel/testing';
import { useQueueRedis } from './redis.fixture.js';
import { SendQueues, createSendWorkers } from './send-queues.js';
import { recordingWorkers, type RecordingWorkers } from './send-queues.fixture.js';

const fx = useQueueRedis();
const toClose: { close(): Promise<void> }[] = [];

afterEach(async () => {
  await Promise.all(toClose.splice(0).map((c) => c.close()));
});

function sendQueues(prefix: string, shards: number, previousShards?: QueueLayout): SendQueues {
  const queues = new SendQueues(fx.redis, { prefix, shards, ...(previousShards && { previousShards }) });
  toClose.push(queues);
  return queues;
}

const specs = (n: number, over: Partial<EmailJobSpec> = {}): EmailJobSpec[] =>
  Array.from({ length: n }, () => ({ teamId: 't1', emailId: v7(), ...over }));

/** Recording workers of every lane, closed after the test. */
function recording(prefix: string, shards: number, previousShards?: QueueLayout): RecordingWorkers {
  const handle = recordingWorkers({
    connection: fx.redis,
    prefix,
    shards,
    ...(previousShards && { previousShards }),
  });
  toClose.push(handle);
  return handle;
}

async function waitingIn(prefix: string, lane: SendLane, layout: QueueLayout): Promise<number[]> {
  return Promise.all(
    sendQueueNames(lane, layout).map(async (name) => {
      const q = new Queue(name, { connection: fx.redis, prefix });
      try {
        const counts = await q.getJobCounts('waiting', 'delayed');
        return counts.waiting! + counts.delayed!;
      } finally {
        await q.close();
      }
    }),
  );
}

describe('SendQueues.enqueue', () => {
  it('puts each job on the shard of its email id, with the send job options', async () => {
    const prefix = uniquePrefix('enqueue');
    const queues = sendQueues(prefix, 4);
    const jobs = specs(80);
    await queues.enqueue('send', jobs);

    for (const { emailId } of jobs) {
      const job = await queues.queueOf('send', emailId).getJob(emailId);
      expect(job?.data).toEqual({ v: 1, teamId: 't1', emailId });
      expect(job?.opts).toMatchObject({
        attempts: 1000,
        backoff: { type: 'smtp-retry' },
        removeOnComplete: true,
      });
    }
    const perShard = await waitingIn(prefix, 'send', 4);
    expect(perShard.every((n) => n > 0)).toBe(true);
    expect(perShard.reduce((a, b) => a + b, 0)).toBe(80);
    const counts = await queues.counts();
    expect(counts.send).toMatchObject({ waiting: 80, delayed: 0, active: 0 });
    expect(counts.broadcast).toMatchObject({ waiting: 0 });
  });

  it('delays a scheduled email, and writes nothing for an empty list', async () => {
    const queues = sendQueues(uniquePrefix('delay'), 2);
    const [job] = specs(1, { delayMs: 60_000 });
    await queues.enqueue('broadcast', [job!]);
    await queues.enqueue('send', []);
    const stored = await queues.queueOf('broadcast', job!.emailId).getJob(job!.emailId);
    expect(await stored?.getState()).toBe('delayed');
    expect(stored?.delay).toBe(60_000);
    expect((await queues.counts()).send).toMatchObject({ waiting: 0, delayed: 0 });
  });

  it('enqueueing an email again changes nothing: a waiting job, a delayed job, twice in one call', async () => {
    const queues = sendQueues(uniquePrefix('again'), 3);
    const [waiting, delayed, twice] = specs(3);
    await queues.enqueue('send', [waiting!, { ...delayed!, delayMs: 60_000 }]);
    const before = await queues.queueOf('send', delayed!.emailId).getJob(delayed!.emailId);

    await queues.enqueue('send', [
      { ...waiting!, teamId: 'other' },
      { ...delayed!, teamId: 'other', delayMs: 1 },
      twice!,
      { ...twice!, delayMs: 60_000 },
    ]);

    const w = await queues.queueOf('send', waiting!.emailId).getJob(waiting!.emailId);
    expect(w?.data.teamId).toBe('t1');
    const d = await queues.queueOf('send', delayed!.emailId).getJob(delayed!.emailId);
    expect(d?.data.teamId).toBe('t1');
    expect(await d?.getState()).toBe('delayed');
    expect(d?.delay).toBe(60_000);
    expect(d?.timestamp).toBe(before?.timestamp);
    const t = await queues.queueOf('send', twice!.emailId).getJob(twice!.emailId);
    expect(await t?.getState()).toBe('waiting');
    expect((await queues.counts()).send).toMatchObject({ waiting: 2, delayed: 1 });
  });
});

describe('remove and reschedule', () => {
  it('find the job on its shard', async () => {
    const queues = sendQueues(uniquePrefix('find'), 4);
    const jobs = specs(8, { delayMs: 60_000 });
    await queues.enqueue('send', jobs);
    const [a, b] = jobs;

    expect(await queues.reschedule('send', a!.emailId, 120_000)).toBe(true);
    const moved = await queues.queueOf('send', a!.emailId).getJob(a!.emailId);
    expect(moved?.delay).toBe(120_000);
    expect(await queues.remove('send', b!.emailId)).toBe(true);
    expect(await queues.queueOf('send', b!.emailId).getJob(b!.emailId)).toBeUndefined();

    expect(await queues.remove('send', v7())).toBe(false);
    expect(await queues.reschedule('send', v7(), 1_000)).toBe(false);
    // The lane is part of the address: the job is not on the broadcast lane.
    expect(await queues.remove('broadcast', a!.emailId)).toBe(false);
  });

  it('also find a job queued before QUEUE_SHARDS changed, while the previous layout is set', async () => {
    const prefix = uniquePrefix('find-previous');
    const jobs = specs(12, { delayMs: 60_000 });
    await sendQueues(prefix, 4).enqueue('send', jobs);
    const [a, b] = jobs;

    const without = sendQueues(prefix, 2);
    expect(await without.remove('send', a!.emailId)).toBe(false);

    const changing = sendQueues(prefix, 2, 4);
    expect(await changing.reschedule('send', a!.emailId, 5_000)).toBe(true);
    expect(await changing.remove('send', b!.emailId)).toBe(true);
    expect(await changing.remove('send', b!.emailId)).toBe(false);
    const old = sendQueues(prefix, 4);
    expect((await old.queueOf('send', a!.emailId).getJob(a!.emailId))?.delay).toBe(5_000);
    expect(await old.queueOf('send', b!.emailId).getJob(b!.emailId)).toBeUndefined();
    // The gauge counts both layouts; the drain check only the previous one.
    expect((await changing.counts()).send).toMatchObject({ delayed: 11 });
    expect(await changing.previousPending()).toBe(11);
    expect(await without.previousPending()).toBeUndefined();
  });
});

describe('changing QUEUE_SHARDS strands no job', () => {
  it.each([
    [4, 2],
    [2, 4],
  ])('%i → %i shards: workers that also consume the previous layout process every job', async (from, to) => {
    const prefix = uniquePrefix(`shards-${from}-${to}`);
    const before = sendQueues(prefix, from);
    const old = [...specs(60), ...specs(10, { delayMs: 200 })];
    await before.enqueue('send', old);
    const oldBroadcast = specs(20);
    await before.enqueue('broadcast', oldBroadcast);

    const after = sendQueues(prefix, to, from);
    const fresh = specs(40);
    await after.enqueue('send', fresh);

    // Workers of the new layout alone leave the old queues as they are.
    const newOnly = recording(prefix, to);
    await waitUntil(() => fresh.every((j) => newOnly.seen.has(j.emailId)), { message: 'the new jobs' });
    expect(newOnly.seen.size).toBe(fresh.length);
    await newOnly.close();
    expect(await after.previousPending()).toBe(old.length + oldBroadcast.length);

    // With QUEUE_SHARDS_PREVIOUS, every old job is processed, each once.
    const both = recording(prefix, to, from);
    await waitUntil(async () => (await after.previousPending()) === 0, {
      timeoutMs: 20_000,
      message: 'the previous layout to drain',
    });
    await waitUntil(() => both.seen.size === old.length + oldBroadcast.length, { message: 'every old job' });
    for (const { emailId } of [...old, ...oldBroadcast]) expect(both.seen.get(emailId)).toBe(1);
    const counts = await after.counts();
    for (const lane of SEND_LANES) expect(counts[lane]).toMatchObject({ waiting: 0, delayed: 0, active: 0 });
  });

  it('the unsharded queues of releases before sharding are drained the same way', async () => {
    const prefix = uniquePrefix('unsharded');
    const legacy = new Queue<SendQueueJob>(LANE_QUEUE.send, { connection: fx.redis, prefix });
    toClose.push(legacy);
    const ids = Array.from({ length: 10 }, () => v7());
    await legacy.addBulk(
      ids.map((emailId) => ({
        name: 'send',
        data: { v: 1, teamId: 't1', emailId },
        opts: { jobId: emailId },
      })),
    );

    const queues = sendQueues(prefix, 2, 'unsharded');
    expect(await queues.previousPending()).toBe(10);
    const workers = recording(prefix, 2, 'unsharded');
    await waitUntil(() => ids.every((id) => workers.seen.get(id) === 1), { message: 'the unsharded jobs' });
    expect(await queues.previousPending()).toBe(0);
  });
});

describe('createSendWorkers', () => {
  it('makes one worker per queue of the lane, splitting its concurrency and rate over them', async () => {
    const prefix = uniquePrefix('workers');
    const workers = createSendWorkers('send', async () => undefined, {
      connection: fx.redis,
      prefix,
      shards: 3,
      previousShards: 2,
      concurrency: 10,
      sendRate: 7,
      autorun: false,
    });
    toClose.push({ close: () => Promise.all(workers.map((w) => w.close())).then(() => undefined) });

    expect(workers.map((w) => w.name)).toEqual([...sendQueueNames('send', 3), ...sendQueueNames('send', 2)]);
    expect(workers.map((w) => w.concurrency)).toEqual([2, 2, 2, 2, 2]);
    for (const w of workers) expect(w.opts.limiter).toEqual({ max: 7, duration: 5_000 });

    const plain = createSendWorkers('broadcast', async () => undefined, {
      connection: fx.redis,
      prefix,
      concurrency: 50,
      autorun: false,
    });
    toClose.push({ close: () => Promise.all(plain.map((w) => w.close())).then(() => undefined) });
    expect(plain.map((w) => [w.name, w.concurrency])).toEqual([[sendQueueNames('broadcast', 1)[0], 50]]);
    expect(plain[0]!.opts.limiter).toBeUndefined();
  });
});
