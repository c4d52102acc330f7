/**
 * createRedis against a real Redis Cluster: both profiles talk to it through REDIS_URL's cluster
 * form (or REDIS_CLUSTER_NODES), pingRedis reads the cluster's state, and the errors of a
 * failover or of a lost cluster count as "unavailable" — and come fast on a `command` connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, redisEnv } from '@petrel/config';
import {
  startRedisCluster,
  waitUntil,
  type StartRedisClusterOptions,
  type TestRedisCluster,
} from '@petrel/testing';
import { Cluster } from 'ioredis';
import { closesCleanly, createRedis, isRedisUnavailable, pingRedis, type RedisClient } from './redis.js';

const clients: RedisClient[] = [];
function connect(...args: Parameters<typeof createRedis>): Cluster {
  const client = createRedis(...args);
  clients.push(client);
  expect(client).toBeInstanceOf(Cluster);
  return client as Cluster;
}

afterAll(async () => {
  await Promise.all(clients.map((c) => c.quit().catch(() => undefined)));
});

/** Runs `command` until it succeeds, collecting the errors met on the way. */
async function untilItWorks<T>(
  command: () => Promise<T>,
  timeoutMs: number,
): Promise<{ value: T; errors: unknown[] }> {
  const errors: unknown[] = [];
  const value = await waitUntil(
    async () => {
      try {
        return { ok: await command() };
      } catch (err) {
        errors.push(err);
        return undefined;
      }
    },
    { timeoutMs, message: 'the command to work again' },
  );
  return { value: value.ok, errors };
}

/** A cluster for the enclosing describe block, started before its tests and stopped after. */
function useCluster(opts: StartRedisClusterOptions): { readonly cluster: TestRedisCluster } {
  const fx = {} as { cluster: TestRedisCluster };
  beforeAll(async () => {
    fx.cluster = await startRedisCluster(opts);
  }, 90_000);
  afterAll(async () => {
    await fx.cluster?.stop();
  });
  return fx;
}

describe('createRedis on a Redis Cluster (3 masters, 1 replica each)', () => {
  const fx = useCluster({ masters: 3, replicas: 1 });

  it('builds a Cluster client for redis+cluster:// that reaches every master, named as asked', async () => {
    const redis = connect(fx.cluster.url, 'command', 'petrel-test');
    for (let i = 0; i < 60; i++) await redis.set(`k${i}`, String(i));
    expect(await redis.mget('{t}a', '{t}b')).toEqual([null, null]);
    for (let i = 0; i < 60; i++) expect(await redis.get(`k${i}`)).toBe(String(i));
    const masters = redis.nodes('master');
    expect(masters).toHaveLength(3);
    expect((await Promise.all(masters.map((m) => m.dbsize()))).every((n) => n > 0)).toBe(true);
    for (const m of masters) expect(await m.client('GETNAME')).toBe('petrel-test');
    expect(await pingRedis(redis)).toBe(true);
    // The blocking profile is what BullMQ requires of a worker connection.
    expect(redis.options.redisOptions?.maxRetriesPerRequest).toBe(1);
    const blocking = connect(fx.cluster.url, 'blocking');
    expect(blocking.options.redisOptions?.maxRetriesPerRequest).toBeNull();
    expect(await blocking.bzpopmin('{t}empty', 0.05)).toBeNull();
  });

  it('takes REDIS_CLUSTER_NODES as the same cluster', async () => {
    const nodes = fx.cluster.nodes.map((n) => `${n.host}:${n.port}`).join(',');
    const config = loadConfig(redisEnv, { REDIS_CLUSTER_NODES: nodes });
    const redis = connect(config.REDIS_URL!, 'command');
    await redis.set('{nodes}k', 'v');
    expect(await redis.get('{nodes}k')).toBe('v');
  });

  it('rides out a master failover; what fails meanwhile is "unavailable"', async () => {
    const redis = connect(fx.cluster.url, 'command');
    await redis.set('{failover}k', 'v1');
    const slot = Number(await redis.cluster('KEYSLOT', '{failover}k'));
    const range = (await redis.cluster('SLOTS')).find(([lo, hi]) => slot >= lo && slot <= hi);
    const victim = range![2]![1];

    fx.cluster.kill(victim);
    const { value, errors } = await untilItWorks(() => redis.set('{failover}k', 'v2'), 60_000);
    expect(value).toBe('OK');
    for (const err of errors) expect(isRedisUnavailable(err), String(err)).toBe(true);
    expect(await redis.get('{failover}k')).toBe('v2');
    await fx.cluster.waitHealthy(60_000);
    expect(await pingRedis(redis)).toBe(true);
  }, 90_000);
});

describe('createRedis when the whole cluster is lost', () => {
  const fx = useCluster({ masters: 3, replicas: 0 });

  it('fails a command fast with an "unavailable" error, and pingRedis says so', async () => {
    const redis = connect(fx.cluster.url, 'command');
    await redis.set('{lost}k', 'v');
    for (const node of fx.cluster.nodes) fx.cluster.kill(node.port);

    // Every command fails (none waits for the cluster to return), each within a few seconds.
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const err = await redis.get('{lost}k').then(
        () => new Error('expected a failure'),
        (e: unknown) => e,
      );
      expect(isRedisUnavailable(err), String(err)).toBe(true);
      expect(Date.now() - started).toBeLessThan(8_000);
    }
    expect(await pingRedis(redis)).toBe(false);
  }, 60_000);
});

describe('closing a cluster client while its slot map is being refreshed', () => {
  const fx = useCluster({ masters: 3, replicas: 0 });

  /**
   * The race of a failover, made deterministic: a CLUSTER SLOTS answer that ioredis applies to
   * the pool after `disconnect()` emptied it. The pool is refilled as ioredis' own refresh does
   * (`connectionPool.reset`, its internal) — that is the one step the test plays by hand.
   */
  async function endsAfterLateRefresh(client: Cluster): Promise<'end' | 'stuck'> {
    await waitUntil(() => client.status === 'ready', { message: 'the client to be ready' });
    const nodes = client.nodes().map((n) => ({ host: n.options.host, port: n.options.port }));
    const ended = new Promise<'end'>((resolve) => client.once('end', () => resolve('end')));
    client.disconnect();
    (client as unknown as { connectionPool: { reset(n: typeof nodes): void } }).connectionPool.reset(nodes);
    const stuck = new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 2_000).unref());
    const outcome = await Promise.race([ended, stuck]);
    if (outcome === 'stuck') client.nodes().forEach((n) => n.disconnect());
    return outcome;
  }

  it('still ends (BullMQ waits for that `end` to close a worker), also for a duplicate', async () => {
    const client = createRedis(fx.cluster.url, 'blocking') as Cluster;
    expect(await endsAfterLateRefresh(client.duplicate())).toBe('end'); // BullMQ's blocking connection
    expect(await endsAfterLateRefresh(client)).toBe('end');
  });

  it('ends when the listener that turns `close` into `end` was spent by an earlier close', async () => {
    // the state a client is in after a reconnect cycle that closed once already
    const spent = (c: Cluster) => {
      c.removeAllListeners('close');
      return c;
    };
    const ready = async (c: Cluster) => {
      await waitUntil(() => c.status === 'ready', { message: 'the client to be ready' });
      return c;
    };
    const ends = async (c: Cluster): Promise<'end' | 'stuck'> => {
      const ended = new Promise<'end'>((resolve) => c.once('end', () => resolve('end')));
      c.disconnect();
      return Promise.race([
        ended,
        new Promise<'stuck'>((resolve) => setTimeout(() => resolve('stuck'), 2_000).unref()),
      ]);
    };
    expect(await ends(closesCleanly(spent(await ready(new Cluster(fx.cluster.nodes)))))).toBe('end');
    expect(await ends(spent(await ready(new Cluster(fx.cluster.nodes))))).toBe('stuck'); // unguarded
  });

  it('the race is real: an unguarded ioredis cluster client never ends', async () => {
    // Shows this file tests something; if ioredis fixes the race, drop `closesCleanly`.
    expect(await endsAfterLateRefresh(new Cluster(fx.cluster.nodes))).toBe('stuck');
  });
});
