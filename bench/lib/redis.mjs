// The bench's own redis-server, configured as production (infra/redis.conf): AOF on with
// appendfsync everysec, noeviction, no RDB snapshots. One instance serves every phase, Petrel
// and baseline alike; `reset()` empties it and compacts the AOF between measurements so that
// each run starts from the same state (no leftover keys, no pending AOF rewrite).
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { onExitSync, spawnProcess } from './proc.mjs';
import { freePort, sleep, waitUntil } from './util.mjs';

const REDIS_CONF = fileURLToPath(new URL('../../infra/redis.conf', import.meta.url));
const REDIS_BIN =
  ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p)) ?? 'redis-server';

export async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'petrel-bench-redis-'));
  const child = spawnProcess('redis', REDIS_BIN, [
    REDIS_CONF, // production settings: AOF everysec, noeviction, no RDB
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    // extra server settings to try (e.g. "--hash-max-listpack-value 4096"), applied to both sides
    ...(process.env.BENCH_REDIS_ARGS ?? '').split(/\s+/).filter(Boolean),
  ]);
  const removeDir = onExitSync(() => rmSync(dir, { recursive: true, force: true }));
  const url = `redis://127.0.0.1:${port}`;
  const client = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: true });
  client.on('error', () => undefined); // connection errors surface as failed commands
  await waitUntil(
    async () => {
      child.assertAlive();
      if (client.status !== 'ready') await client.connect().catch(() => undefined);
      return (await client.ping()) === 'PONG';
    },
    { what: `redis-server on ${port}`, timeoutMs: 10_000 },
  );
  const server = await client.info('server');
  const version = (server.match(/^redis_version:(.+)$/m) || [])[1]?.trim() ?? 'unknown';
  const persistence = await client.info('persistence');

  return {
    url,
    port,
    pid: child.pid,
    child,
    client,
    version,
    aof: /^aof_enabled:1/m.test(persistence),

    /** Empty the database and wait until no AOF rewrite is running or scheduled. */
    async reset() {
      await client.flushall();
      await waitNoRewrite(client);
      await client.bgrewriteaof().catch(() => undefined);
      await sleep(50);
      await waitNoRewrite(client);
    },

    async memory() {
      const m = await client.info('memory');
      return Number((m.match(/^used_memory:(\d+)/m) || [])[1] || 0);
    },

    /** Zero INFO commandstats (and the other resettable counters). */
    async resetStats() {
      await client.config('RESETSTAT');
    },

    /**
     * Redis-side cost per command since resetStats(), top `top` by total time: where Redis's CPU
     * goes. Commands run inside Lua scripts are counted both on their own and in evalsha's time.
     */
    async commandStats(top = 8, perUnits) {
      const info = await client.info('commandstats');
      const rows = [];
      for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
        rows.push({ cmd: m[1], calls: Number(m[2]), usec: Number(m[3]) });
      }
      rows.sort((a, b) => b.usec - a.usec);
      return rows.slice(0, top).map((r) => ({
        ...r,
        usec_per_call: Math.round((r.usec / r.calls) * 10) / 10,
        ...(perUnits ? { usec_per_email: Math.round((r.usec / perUnits) * 10) / 10 } : {}),
      }));
    },

    async rewrites() {
      const s = await client.info('persistence');
      return Number((s.match(/^aof_rewrites:(\d+)/m) || [])[1] || 0);
    },

    async stop() {
      await client.quit().catch(() => undefined);
      await child.stop(5_000);
      rmSync(dir, { recursive: true, force: true });
      removeDir();
    },
  };
}

/** Resolves once the server runs no AOF rewrite and has none scheduled. */
export async function waitNoRewrite(client) {
  await waitUntil(
    async () => {
      const s = await client.info('persistence');
      return /^aof_rewrite_in_progress:0/m.test(s) && /^aof_rewrite_scheduled:0/m.test(s);
    },
    { what: 'AOF rewrite to finish', timeoutMs: 60_000, intervalMs: 50 },
  );
}
