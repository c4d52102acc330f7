/**
 * The embedded Redis of all-in-one mode: a `redis-server` child (Debian's package) on loopback,
 * data under <DATA_DIR>/redis, AOF on, `noeviction`, stopped when Petrel exits. When Redis is
 * already answering on the port with our data dir (a previous run, the CLI), it is reused.
 */
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { Redis } from 'ioredis';
import { log } from '@petrel/observability';

/** infra/redis.conf, from src/ or dist/ alike. */
const REDIS_CONF = fileURLToPath(new URL('../../../infra/redis.conf', import.meta.url));

export interface EmbeddedRedis {
  url: string;
  /** False when an already running server was reused (then it is not ours to stop). */
  owned: boolean;
  stop(): Promise<void>;
}

const CANDIDATES = [
  'redis-server',
  '/usr/bin/redis-server',
  '/usr/sbin/redis-server',
  '/usr/local/bin/redis-server',
];

export function findRedisServer(): string | null {
  for (const c of CANDIDATES) {
    const r = spawnSync(c, ['--version'], { stdio: 'ignore' });
    if (r.status === 0) return c;
  }
  return null;
}

async function answers(url: string): Promise<boolean> {
  const r = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 500,
  });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

export async function startEmbeddedRedis(opts: { dataDir: string; port: number }): Promise<EmbeddedRedis> {
  const url = `redis://127.0.0.1:${opts.port}`;
  if (await answers(url)) {
    log().info({ url }, 'reusing the Redis already running on the embedded port');
    return { url, owned: false, stop: async () => undefined };
  }
  const bin = findRedisServer();
  if (!bin) {
    throw new Error(
      "redis-server is not installed. Run `bash scripts/ensure-redis.sh` (installs Debian's redis-server), or set REDIS_URL.",
    );
  }
  const dir = resolve(opts.dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const child: ChildProcess = spawn(
    bin,
    [
      // production settings (AOF everysec, noeviction, no RDB) from the one file that holds them
      REDIS_CONF,
      '--port',
      String(opts.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--daemonize',
      'no',
      '--logfile',
      '',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr?.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  const deadline = Date.now() + 15_000;
  while (!(await answers(url))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`embedded redis-server failed to start on port ${opts.port}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  log().info(
    { url, dir, appendonly: true, aof: existsSync(resolve(dir, 'appendonlydir')) },
    'embedded redis-server started',
  );
  return {
    url,
    owned: true,
    async stop() {
      process.removeListener('exit', kill);
      if (child.exitCode !== null) return;
      child.kill('SIGTERM'); // redis-server flushes the AOF and exits on SIGTERM
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      log().info('embedded redis-server stopped');
    },
  };
}
