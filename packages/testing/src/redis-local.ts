// Redis as a child process of the test run, from the local `redis-server` binary. Owns the
// process and its temp dir; must never leave either behind (see child-registry.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { exited, killOnExit, outputTail, terminate } from './child-registry.js';
import { freePort } from './free-port.js';
import { harnessArgs, redisArgs, type StartRedisOptions, type TestRedis } from './redis-options.js';
import { waitForRedis } from './redis-ping.js';

const HOST = '127.0.0.1';
/** Attempts at a fresh port when another process grabbed the one freePort() returned. */
const PORT_RETRIES = 3;

function findOnPath(name: string): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  for (const dir of dirs.filter(Boolean)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Path of `redis-server` on PATH or in the usual system dirs; throws how to install it. */
export function findRedisServer(): string {
  const bin = findOnPath('redis-server');
  if (bin) return bin;
  throw new Error(
    'No container runtime and no local redis-server (looked on PATH, /usr/bin, /usr/sbin, /usr/local/bin). ' +
      'Run `bash scripts/ensure-redis.sh` to install it.',
  );
}

/**
 * util-linux `setpriv --pdeathsig` makes the kernel SIGKILL redis-server when the test process
 * dies, even by SIGKILL, where no exit handler runs. It execs, so the pid stays redis-server's.
 */
const SETPRIV = findOnPath('setpriv');

interface Running {
  child: ChildProcess;
  tail: () => string;
}

function spawnRedis(bin: string, port: number, dir: string, opts: StartRedisOptions): Running {
  const flags = { port: String(port), bind: HOST, dir, daemonize: 'no', 'protected-mode': 'yes' };
  const args = [...redisArgs(flags), ...harnessArgs(opts)];
  const [command, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', bin, ...args]] : [bin, args];
  const child = spawn(command, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
  killOnExit(child);
  return { child, tail: outputTail(child) };
}

async function startOn(bin: string, port: number, dir: string, opts: StartRedisOptions): Promise<Running> {
  const running = spawnRedis(bin, port, dir, opts);
  let spawnError: Error | undefined;
  running.child.once('error', (err) => (spawnError = err));
  try {
    await waitForRedis(HOST, port, {
      gaveUp: () => {
        if (spawnError) return `could not run ${bin}: ${spawnError.message}`;
        const { exitCode, signalCode } = running.child;
        if (exitCode === null && signalCode === null) return undefined;
        return `redis-server exited (${exitCode ?? signalCode}) before answering PING:\n${running.tail()}`;
      },
    });
  } catch (err) {
    await terminate(running.child, 'SIGKILL');
    throw err;
  }
  return running;
}

/** Starts `redis-server` with the harness flags on a free (or the given) port. */
export async function startLocalRedis(opts: StartRedisOptions = {}): Promise<TestRedis> {
  const bin = findRedisServer();
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'petrel-redis-')));
  let port = opts.port ?? (await freePort());
  let running: Running | undefined;
  for (let attempt = 1; !running; attempt += 1) {
    try {
      running = await startOn(bin, port, dir, opts);
    } catch (err) {
      const portTaken = err instanceof Error && /address already in use/i.test(err.message);
      if (!portTaken || opts.port !== undefined || attempt >= PORT_RETRIES) {
        if (ownDir) await rm(dir, { recursive: true, force: true });
        throw err;
      }
      port = await freePort();
    }
  }
  let current: Running = running;
  let stopped = false;

  return {
    url: `redis://${HOST}:${port}`,
    host: HOST,
    port,
    dir,
    mode: 'local',
    async stop() {
      if (stopped) return;
      stopped = true;
      await terminate(current.child, 'SIGTERM');
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
    kill(signal = 'SIGKILL') {
      current.child.kill(signal);
    },
    async restart() {
      if (stopped) throw new Error('restart() after stop(): the Redis data dir is gone');
      await terminate(current.child, 'SIGTERM');
      await exited(current.child);
      current = await startOn(bin, port, dir, opts);
    },
  };
}
