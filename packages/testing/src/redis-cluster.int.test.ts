import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster, type TestRedisCluster } from './redis-cluster.js';

describe('startRedisCluster', () => {
  let cluster: TestRedisCluster;
  let client: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3, replicas: 1 });
    client = new Cluster(cluster.nodes.map((n) => ({ host: n.host, port: n.port })));
  }, 90_000);

  afterAll(async () => {
    await client?.quit().catch(() => undefined);
    await cluster?.stop();
  });

  it('serves all slots from 3 masters with a replica each', async () => {
    expect(cluster.nodes).toHaveLength(6);
    expect(await cluster.masters()).toHaveLength(3);
    expect(cluster.url).toMatch(/^redis\+cluster:\/\/127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+){5}$/);
    // Keys spread over the slots land on different masters and read back.
    for (let i = 0; i < 50; i++) await client.set(`k${i}`, String(i));
    for (let i = 0; i < 50; i++) expect(await client.get(`k${i}`)).toBe(String(i));
    const perMaster = await Promise.all(client.nodes('master').map((n) => n.dbsize()));
    expect(perMaster.filter((n) => n > 0).length).toBe(3);
  });

  it('refuses a multi-key command across slots and accepts one within a hash tag', async () => {
    await expect(client.mset('a', '1', 'b', '2')).rejects.toThrow(/CROSSSLOT/);
    await expect(client.mset('{t}a', '1', '{t}b', '2')).resolves.toBe('OK');
  });

  it('promotes a replica when a master is killed with SIGKILL', async () => {
    await client.set('{failover}k', 'v');
    const slot = Number(await client.cluster('KEYSLOT', '{failover}k'));
    // The master that owns the slot of our key.
    const shards = await client.cluster('SLOTS');
    const range = shards.find(([lo, hi]) => slot >= lo && slot <= hi)!;
    const victim = range[2]![1];
    cluster.kill(victim);
    await cluster.waitHealthy(60_000);
    const after = await cluster.masters();
    expect(after.map((m) => m.port)).not.toContain(victim);
    expect(after).toHaveLength(3);
    expect(await client.get('{failover}k')).toBe('v');
  }, 90_000);
});
