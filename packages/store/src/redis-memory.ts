/**
 * Memory of the Redis that holds everything: `used_memory` and `maxmemory` from `INFO memory` of
 * one server, or of every master of a cluster (each master has its own limit, and the first to
 * reach it refuses writes for its slots). With `maxmemory-policy noeviction` a full Redis refuses
 * writes (the API answers 503), so operators watch the ratio.
 */
import { Cluster } from 'ioredis';
import type { RedisClient } from './redis.js';

export interface RedisNodeMemory {
  /** `host:port` of the node as the client reaches it. */
  node: string;
  usedBytes: number;
  /** 0 when the node has no limit. */
  maxBytes: number;
}

function infoField(info: string, name: string): number {
  const match = new RegExp(`^${name}:(\\d+)`, 'm').exec(info);
  return match ? Number(match[1]) : 0;
}

export async function redisMemory(redis: RedisClient): Promise<RedisNodeMemory[]> {
  const nodes = redis instanceof Cluster ? redis.nodes('master') : [redis];
  return Promise.all(
    nodes.map(async (node) => {
      const info = await node.info('memory');
      return {
        node: `${node.options.host ?? 'localhost'}:${node.options.port ?? 6379}`,
        usedBytes: infoField(info, 'used_memory'),
        maxBytes: infoField(info, 'maxmemory'),
      };
    }),
  );
}
