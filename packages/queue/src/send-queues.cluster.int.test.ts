/**
 * The sharded send queues on a real Redis Cluster of 3 masters: every BullMQ script of a shard
 * runs in its one slot (no CROSSSLOT), the shards of a lane are served by different masters, and
 * jobs enqueued through them are all processed, cancelled and rescheduled.
 */
import { v7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEND_LANES, keySlot, sendQueueNames } from '@petrel/contracts';
import { createRedis, type Cluster } from '@petrel/store';
import { startRedisCluster, uniquePrefix, waitUntil, type TestRedisCluster } from '@petrel/testing';
import { SendQueues } from './send-queues.js';
import { recordingWorkers } from './send-queues.fixture.js';

const SHARDS = 3;

let cluster: TestRedisCluster;
let command: Cluster;
let blocking: Cluster;
let prefix: string;
let queues: SendQueues;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicas: 0 });
  // The two connection profiles of production: the API's (queues) and the workers'.
  command = createRedis(cluster.url, 'command', 'queue-test') as Cluster;
  blocking = createRedis(cluster.url, 'blocking', 'queue-test-bull') as Cluster;
  prefix = `${uniquePrefix('cluster')}:bull`;
  queues = new SendQueues(command, { prefix, shards: SHARDS });
  await queues.ready();
}, 90_000);

afterAll(async () => {
  await queues?.close();
  await Promise.all([command?.quit().catch(() => undefined), blocking?.quit().catch(() => undefined)]);
  await cluster?.stop();
});

/** The port of the master that serves `slot`, from CLUSTER SLOTS. */
async function masterOf(slot: number): Promise<number> {
  const range = (await command.cluster('SLOTS')).find(([lo, hi]) => slot >= lo && slot <= hi);
  if (!range?.[2]) throw new Error(`no master serves slot ${slot}`);
  return range[2][1];
}

describe('sharded send queues on a 3-master Redis Cluster', () => {
  it('put each shard of a lane in its own slot, on a master of its own', async () => {
    for (const lane of SEND_LANES) {
      const names = sendQueueNames(lane, SHARDS);
      const slots = names.map((name) => keySlot(name));
      // Redis agrees on the slot of every key of the queue (BullMQ keys: <prefix>:<name>:<suffix>).
      for (const [i, name] of names.entries()) {
        for (const suffix of ['wait', 'delayed', 'meta', 'id', v7()])
          expect(Number(await command.cluster('KEYSLOT', `${prefix}:${name}:${suffix}`))).toBe(slots[i]);
      }
      const masters = await Promise.all(slots.map(masterOf));
      expect(new Set(masters).size).toBe(SHARDS);
    }
  });

  it('enqueue and process jobs through every shard; the keys of a shard live on its master only', async () => {
    const send = Array.from({ length: 90 }, () => ({ teamId: 't1', emailId: v7() }));
    const broadcast = Array.from({ length: 30 }, () => ({ teamId: 't2', emailId: v7() }));
    await Promise.all([queues.enqueue('send', send), queues.enqueue('broadcast', broadcast)]);
    expect((await queues.counts()).send).toMatchObject({ waiting: 90 });

    // Each master holds the keys of exactly the shards whose slots it serves: one per lane.
    for (const node of command.nodes('master')) {
      const keys = await node.keys(`${prefix}:*`);
      const tags = new Set(keys.map((k) => /\{[^}]+\}/.exec(k)![0]));
      expect(tags.size).toBe(SEND_LANES.length);
      for (const tag of tags) expect(await masterOf(keySlot(tag))).toBe(node.options.port);
    }

    const { seen, close } = recordingWorkers({
      connection: blocking,
      prefix,
      shards: SHARDS,
      concurrency: 6,
    });
    try {
      await waitUntil(() => seen.size === send.length + broadcast.length, {
        timeoutMs: 30_000,
        message: 'every job processed',
      });
      for (const { emailId } of [...send, ...broadcast]) expect(seen.get(emailId)).toBe(1);
    } finally {
      await close();
    }
    const counts = await queues.counts();
    for (const lane of SEND_LANES) expect(counts[lane]).toMatchObject({ waiting: 0, active: 0, delayed: 0 });
  });

  it('a repeated enqueue is a no-op; remove and reschedule find delayed jobs on their shards', async () => {
    const jobs = Array.from({ length: 12 }, () => ({ teamId: 't1', emailId: v7(), delayMs: 60_000 }));
    await queues.enqueue('send', jobs);
    await queues.enqueue('send', jobs);
    expect((await queues.counts()).send).toMatchObject({ delayed: 12 });

    const [a, b] = jobs;
    expect(await queues.reschedule('send', a!.emailId, 120_000)).toBe(true);
    expect((await queues.queueOf('send', a!.emailId).getJob(a!.emailId))?.delay).toBe(120_000);
    expect(await queues.remove('send', b!.emailId)).toBe(true);
    expect(await queues.remove('send', b!.emailId)).toBe(false);
    expect((await queues.counts()).send).toMatchObject({ delayed: 11 });
  });
});
