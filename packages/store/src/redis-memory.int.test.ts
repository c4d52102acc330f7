import { describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { onCluster, useStoreRedis } from './redis.fixture.js';
import { redisMemory } from './redis-memory.js';

const fx = useStoreRedis('redis-memory');

describe('redisMemory', () => {
  it('reports used_memory and maxmemory of the server, or of every master of a cluster', async () => {
    const masters = fx.redis instanceof Cluster ? fx.redis.nodes('master') : [fx.redis];
    await Promise.all(masters.map((node) => node.config('SET', 'maxmemory', String(256 * 1024 * 1024))));
    const memory = await redisMemory(fx.redis);
    expect(memory).toHaveLength(onCluster ? 3 : 1);
    expect(new Set(memory.map((m) => m.node)).size).toBe(memory.length);
    for (const m of memory) {
      expect(m.node).toMatch(/^[\w.-]+:\d+$/);
      expect(m.usedBytes).toBeGreaterThan(0);
      expect(m.maxBytes).toBe(256 * 1024 * 1024);
    }
  });
});
