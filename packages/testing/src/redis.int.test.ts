import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { pingRedis } from './redis-ping.js';
import { startRedis, type TestRedis } from './redis.js';

const started: TestRedis[] = [];
const clients: Redis[] = [];

async function redisFor(opts?: Parameters<typeof startRedis>[0]): Promise<TestRedis> {
  const redis = await startRedis(opts);
  started.push(redis);
  return redis;
}

function clientFor(redis: TestRedis): Redis {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  clients.push(client);
  return client;
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await Promise.all(started.splice(0).map((redis) => redis.stop()));
});

const noDockerHere = !existsSync('/var/run/docker.sock') && !process.env.DOCKER_HOST;

describe('startRedis', () => {
  it('starts with the harness flags, answers PING and stops without leftovers', async () => {
    const redis = await redisFor();
    if (noDockerHere) expect(redis.mode).toBe('local');
    expect(redis.url).toBe(`redis://${redis.host}:${redis.port}`);

    const client = clientFor(redis);
    expect(await client.ping()).toBe('PONG');
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'yes']);
    expect(await client.config('GET', 'appendfsync')).toEqual(['appendfsync', 'everysec']);
    expect(await client.config('GET', 'maxmemory-policy')).toEqual(['maxmemory-policy', 'noeviction']);
    expect(await client.config('GET', 'save')).toEqual(['save', '']);

    await redis.stop();
    expect(await pingRedis(redis.host, redis.port)).toBe(false);
    if (redis.mode === 'local') expect(existsSync(redis.dir)).toBe(false);
  });

  it('applies appendonly: false and maxmemory', async () => {
    const redis = await redisFor({ appendonly: false, maxmemory: '24mb' });
    const client = clientFor(redis);
    expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    expect(await client.config('GET', 'maxmemory')).toEqual(['maxmemory', String(24 * 1024 * 1024)]);
  });

  it('keeps AOF data across kill -9 and restart on the same port', async () => {
    const redis = await redisFor();
    const before = clientFor(redis);
    await before.set('survivor', 'yes');
    // appendfsync everysec: give the fsync its second before pulling the plug.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    redis.kill();
    await expect.poll(() => pingRedis(redis.host, redis.port), { timeout: 5_000 }).toBe(false);

    await redis.restart();
    const after = clientFor(redis);
    expect(await after.get('survivor')).toBe('yes');
  });

  it('keeps data across a graceful restart (SIGTERM flushes the AOF)', async () => {
    const redis = await redisFor();
    await clientFor(redis).set('graceful', '1');
    await redis.restart();
    expect(await clientFor(redis).get('graceful')).toBe('1');
  });

  it('keeps a caller-given dir and reports a taken fixed port clearly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petrel-redis-test-'));
    const redis = await redisFor({ dir });
    await clientFor(redis).set('k', 'v');
    await redis.stop();
    expect(existsSync(dir)).toBe(true);
    await rm(dir, { recursive: true, force: true });

    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await expect(startRedis({ port })).rejects.toThrow(/exited .* before answering PING[\s\S]*in use/i);
    } finally {
      blocker.close();
    }
  });
});
