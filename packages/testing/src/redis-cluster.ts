// A real Redis Cluster as child processes of the test run: N masters and R replicas per master,
// each a local `redis-server --cluster-enabled yes`, joined with `redis-cli --cluster create`.
// Owns the processes and one temp dir; must never leave either behind (child-registry.ts).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { exited, killOnExit, outputTail, terminate } from './child-registry.js';
import { findRedisServer } from './redis-local.js';
import { harnessArgs, redisArgs } from './redis-options.js';
import { waitForRedis } from './redis-ping.js';
import { waitUntil } from './wait.js';

const HOST = '127.0.0.1';
const run = promisify(execFile);

/**
 * The cluster bus of a node listens on its port + 10000 (Redis Cluster specification, "Cluster
 * bus"), so a node's port must leave room for that below 65536 and both must be free.
 */
const BUS_OFFSET = 10_000;
/** P and P + 10000 both below the kernel's ephemeral range (32768 on Linux; why: free-port.ts). */
const PORT_MIN = 10_000;
const PORT_MAX = 22_768;

export interface StartRedisClusterOptions {
  /** Masters (default 3, the minimum Redis Cluster accepts). */
  masters?: number;
  /** Replicas per master (default 1). */
  replicas?: number;
  /** cluster-node-timeout in ms: how long a master may be silent before a failover (default 2000). */
  nodeTimeoutMs?: number;
}

export interface ClusterNode {
  host: string;
  port: number;
}

export interface TestRedisCluster {
  /** Every node (masters first as created; roles change after a failover). */
  nodes: ClusterNode[];
  /** `redis+cluster://host:port,host:port,…` — the REDIS_URL form Petrel accepts for a cluster. */
  url: string;
  /** The nodes that are masters now, as the cluster itself reports them. */
  masters(): Promise<ClusterNode[]>;
  /** Signal (SIGKILL by default) the process of the node on `port`; returns at once. */
  kill(port: number, signal?: NodeJS.Signals): void;
  /** Resolves when every live node reports `cluster_state:ok` and every slot is served. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every node and removes the data dir. */
  stop(): Promise<void>;
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}

/** A port P with P and P + 10000 free, not in `taken`. */
async function clusterPort(taken: Set<number>): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const p = PORT_MIN + Math.floor(Math.random() * (PORT_MAX - PORT_MIN));
    if (taken.has(p) || taken.has(p + BUS_OFFSET) || taken.has(p - BUS_OFFSET)) continue;
    if ((await portFree(p)) && (await portFree(p + BUS_OFFSET))) return p;
  }
  throw new Error('no free port pair (P, P+10000) for a cluster node');
}

function redisCli(): string {
  return join(dirname(findRedisServer()), 'redis-cli');
}

async function cli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run(redisCli(), ['-h', HOST, '-p', String(port), ...args], { timeout: 10_000 });
  return stdout;
}

/**
 * The masters that own slots and are not marked failing, from a `CLUSTER NODES` reply
 * (`<id> <ip:port@bus> <flags> <master-id> <ping> <pong> <epoch> <link> <slot ranges…>`).
 */
function slotMasters(nodesReply: string): ClusterNode[] {
  return nodesReply
    .split('\n')
    .map((line) => line.trim().split(' '))
    .filter((f) => f.length > 8 && f[2]!.split(',').includes('master') && !/fail/.test(f[2]!))
    .map((f) => ({ host: HOST, port: Number(f[1]!.split('@')[0]!.split(':')[1]) }));
}

/** Starts the cluster and waits until it serves all 16384 slots. */
export async function startRedisCluster(opts: StartRedisClusterOptions = {}): Promise<TestRedisCluster> {
  const masters = opts.masters ?? 3;
  const replicas = opts.replicas ?? 1;
  const total = masters * (1 + replicas);
  const bin = findRedisServer();
  const root = await mkdtemp(join(tmpdir(), 'petrel-cluster-'));
  const procs = new Map<number, ChildProcess>();
  const taken = new Set<number>();

  const stopAll = async (): Promise<void> => {
    await Promise.all([...procs.values()].map((c) => terminate(c, 'SIGTERM')));
    await rm(root, { recursive: true, force: true });
  };

  try {
    const ports: number[] = [];
    for (let i = 0; i < total; i++) {
      const port = await clusterPort(taken);
      taken.add(port);
      ports.push(port);
      const dir = join(root, String(port));
      await mkdir(dir);
      const args = [
        ...redisArgs({ port: String(port), bind: HOST, dir, daemonize: 'no', 'protected-mode': 'yes' }),
        ...harnessArgs({}),
        ...redisArgs({
          'cluster-enabled': 'yes',
          'cluster-config-file': `nodes-${port}.conf`,
          'cluster-node-timeout': String(opts.nodeTimeoutMs ?? 2_000),
        }),
      ];
      const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      killOnExit(child);
      const tail = outputTail(child);
      procs.set(port, child);
      await waitForRedis(HOST, port, {
        gaveUp: () =>
          child.exitCode !== null ? `cluster node ${port} exited (${child.exitCode}):\n${tail()}` : undefined,
      });
    }
    // --cluster create gives the first `masters` nodes the slots and the rest as their replicas.
    await run(
      redisCli(),
      [
        '--cluster',
        'create',
        ...ports.map((p) => `${HOST}:${p}`),
        '--cluster-replicas',
        String(replicas),
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );

    const nodes = ports.map((port) => ({ host: HOST, port }));
    const live = () =>
      nodes.filter((n) => procs.get(n.port)?.exitCode === null && !procs.get(n.port)?.killed);
    const cluster: TestRedisCluster = {
      nodes,
      url: `redis+cluster://${nodes.map((n) => `${n.host}:${n.port}`).join(',')}`,
      async masters() {
        for (const n of live()) {
          try {
            return slotMasters(await cli(n.port, 'cluster', 'nodes'));
          } catch {
            // that node is not answering; ask the next
          }
        }
        throw new Error('no cluster node answers');
      },
      kill(port, signal = 'SIGKILL') {
        procs.get(port)?.kill(signal);
      },
      async waitHealthy(timeoutMs = 30_000) {
        // Healthy = every live node serves all slots and sees exactly `masters` live masters that
        // own slots (right after a kill, the others still report ok until the node timeout).
        await waitUntil(
          async () => {
            for (const n of live()) {
              const info = await cli(n.port, 'cluster', 'info');
              if (!/cluster_state:ok/.test(info) || !/cluster_slots_ok:16384/.test(info)) return false;
              const owners = slotMasters(await cli(n.port, 'cluster', 'nodes'));
              if (owners.length !== masters || owners.some((o) => !live().some((l) => l.port === o.port)))
                return false;
              // A replica that never finished its first sync cannot be promoted (Redis Cluster
              // specification, "Replica election"): wait for every link to a live master.
              const repl = await cli(n.port, 'info', 'replication');
              const masterPort = /master_port:(\d+)/.exec(repl)?.[1];
              if (
                masterPort &&
                live().some((l) => l.port === Number(masterPort)) &&
                !/master_link_status:up/.test(repl)
              )
                return false;
            }
            return true;
          },
          { timeoutMs, intervalMs: 100, message: 'cluster_state:ok on every live node' },
        );
      },
      async stop() {
        await stopAll();
        await Promise.all([...procs.values()].map((c) => exited(c)));
      },
    };
    await cluster.waitHealthy();
    return cluster;
  } catch (err) {
    await stopAll();
    throw err;
  }
}
