import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { pingRedis } from './redis-ping.js';
import { startRedis, type TestRedis } from './redis.js';
import { stopAfterEach } from './stop-after-each.js';

const clients: Redis[] = [];
const redisFor = stopAfterEach(startRedis);

function clientFor(redis: TestRedis): Redis {
  const client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
  clients.push(client);
  return client;
}

afterEach(() => {
  for (const client of clients.splice(0)) client.disconnect();
});

/** The AOF fields of INFO persistence: bytes written to the file, bytes still buffered. */
async function aof(client: Redis): Promise<{ size: number; buffered: number }> {
  const info = await client.info('persistence');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1]);
  return { size: field('aof_current_size'), buffered: field('aof_buffer_length') };
}

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
    const empty = await aof(before);
    await before.set('survivor', 'yes');
    // kill -9 ends the process, not the kernel: what Redis has written to the AOF survives it,
    // fsync'd or not (fsync guards against losing the machine). With appendfsync everysec Redis
    // may hold a write back while a background fsync is running (redis.io, "Redis persistence"):
    // wait until INFO shows the SET written out — the file grown, nothing left in the buffer.
    await expect
      .poll(
        async () => {
          const now = await aof(before);
          return now.size > empty.size && now.buffered === 0;
        },
        { timeout: 10_000 },
      )
      .toBe(true);
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
