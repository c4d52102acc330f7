// A Redis Cluster for the bench: N masters, no replicas, each a local redis-server with the
// bench's single-node settings (infra/redis.conf: AOF on with appendfsync everysec, noeviction, no
// RDB) plus cluster mode. It offers the same handle as lib/redis.mjs (url, client, reset(),
// resetStats(), commandStats(), memory(), rewrites(), stop()), summed over the masters, so a
// phase runs the same measurement on a single node and on a cluster.
//
// No replicas: the single node the bench compares with has none either, and on a shared box a
// replica would only take CPU from the masters. A replica costs its master little (the write
// stream it already produces for the AOF, sent once more: Redis replication docs, "How Redis
// replication works").
//
// The cluster is built with CLUSTER MEET and CLUSTER ADDSLOTSRANGE instead of
// `redis-cli --cluster create`, which refuses fewer than 3 masters; a 1-master cluster is what
// separates the cost of the cluster protocol (client-side slot routing, one connection per node)
// from the gain of spreading the work over several masters.
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Cluster, Redis } from 'ioredis';
import { onExitSync, spawnProcess } from './proc.mjs';
import { waitNoRewrite } from './redis.mjs';
import { sleep, waitUntil } from './util.mjs';

const REDIS_CONF = fileURLToPath(new URL('../../infra/redis.conf', import.meta.url));
const REDIS_BIN =
  ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => existsSync(p)) ?? 'redis-server';
const HOST = '127.0.0.1';
const SLOTS = 16_384;
/** A node's cluster bus listens on its port + 10000 (Redis Cluster specification, "Cluster bus"). */
const BUS_OFFSET = 10_000;

function portFree(port) {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, HOST, () => srv.close(() => resolve(true)));
  });
}

/** A port P with P and P + 10000 free and not in `taken`. */
async function nodePort(taken) {
  for (let i = 0; i < 200; i++) {
    // P and P + 10000 below the kernel's ephemeral range (why: packages/testing/src/free-port.ts)
    const p = 10_000 + Math.floor(Math.random() * 12_768);
    if ([p, p + BUS_OFFSET, p - BUS_OFFSET].some((q) => taken.has(q))) continue;
    if ((await portFree(p)) && (await portFree(p + BUS_OFFSET))) return p;
  }
  throw new Error('no free port pair (P, P+10000) for a cluster node');
}

/** Slot ranges [lo, hi] splitting the 16384 slots evenly over `n` masters. */
export function slotRanges(n) {
  return Array.from({ length: n }, (_, i) => [
    Math.floor((i * SLOTS) / n),
    Math.floor(((i + 1) * SLOTS) / n) - 1,
  ]);
}

const infoField = (info, key) => Number((info.match(new RegExp(`^${key}:([\\d.]+)`, 'm')) || [])[1] || 0);

/**
 * Starts `masters` cluster nodes and waits until every node reports `cluster_state:ok`.
 * @param {{ masters: number, name?: string }} o
 */
export async function startRedisCluster({ masters, name = 'redis-cluster' }) {
  const taken = new Set();
  const nodes = [];
  const removeDirs = [];
  const stopNodes = async () => {
    await Promise.all(nodes.map((n) => n.direct.quit().catch(() => undefined)));
    await Promise.all(nodes.map((n) => n.child.stop(5_000)));
    for (const n of nodes) rmSync(n.dir, { recursive: true, force: true });
    for (const r of removeDirs) r();
  };
  try {
    for (let i = 0; i < masters; i++) {
      const port = await nodePort(taken);
      taken.add(port);
      const dir = mkdtempSync(join(tmpdir(), 'petrel-bench-cluster-'));
      removeDirs.push(onExitSync(() => rmSync(dir, { recursive: true, force: true })));
      const child = spawnProcess(`${name}-${i + 1}`, REDIS_BIN, [
        REDIS_CONF, // the single node's settings: AOF everysec, noeviction, no RDB
        '--port',
        String(port),
        '--bind',
        HOST,
        '--dir',
        dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        '5000',
        // a node learns its own address from a peer's MEET; a lone master never gets one and
        // would announce an empty host in CLUSTER SLOTS
        '--cluster-announce-ip',
        HOST,
        ...(process.env.BENCH_REDIS_ARGS ?? '').split(/\s+/).filter(Boolean),
      ]);
      // One plain connection per node: per-node INFO, FLUSHALL, CONFIG RESETSTAT, BGREWRITEAOF.
      const direct = new Redis({ host: HOST, port, maxRetriesPerRequest: 3, lazyConnect: true });
      direct.on('error', () => undefined);
      nodes.push({ port, dir, child, direct, pid: child.pid });
      await waitUntil(
        async () => {
          child.assertAlive();
          if (direct.status !== 'ready') await direct.connect().catch(() => undefined);
          return (await direct.ping()) === 'PONG';
        },
        { what: `cluster node on ${port}`, timeoutMs: 10_000 },
      );
    }
    for (const n of nodes.slice(1)) await n.direct.cluster('MEET', HOST, nodes[0].port);
    const ranges = slotRanges(masters);
    await Promise.all(nodes.map((n, i) => n.direct.call('CLUSTER', 'ADDSLOTSRANGE', ...ranges[i])));
    // The nodes learn of each other and of every slot's owner over the cluster bus (gossip).
    await waitUntil(
      async () => {
        for (const n of nodes) {
          const info = await n.direct.cluster('INFO');
          if (
            !/cluster_state:ok/.test(info) ||
            infoField(info, 'cluster_slots_ok') !== SLOTS ||
            infoField(info, 'cluster_known_nodes') !== masters
          )
            return false;
        }
        return true;
      },
      { what: `a ${masters}-master cluster to serve every slot`, timeoutMs: 30_000, intervalMs: 50 },
    );
  } catch (err) {
    await stopNodes();
    throw err;
  }

  const client = new Cluster(
    nodes.map((n) => ({ host: HOST, port: n.port })),
    { redisOptions: { maxRetriesPerRequest: 3 } },
  );
  client.on('error', () => undefined); // connection errors surface as failed commands
  await waitUntil(async () => (await client.ping()) === 'PONG', {
    what: 'the cluster client',
    timeoutMs: 10_000,
  });
  const server = await nodes[0].direct.info('server');
  const each = (fn) => Promise.all(nodes.map((n) => fn(n.direct)));

  return {
    url: `redis+cluster://${nodes.map((n) => `${HOST}:${n.port}`).join(',')}`,
    masters,
    nodes: nodes.map((n) => ({ host: HOST, port: n.port, pid: n.pid })),
    pids: nodes.map((n) => n.pid),
    /** The cluster client: lib/cpu.mjs sums INFO cpu over its masters. */
    client,
    version: (server.match(/^redis_version:(.+)$/m) || [])[1]?.trim() ?? 'unknown',
    aof: /^aof_enabled:1/m.test(await nodes[0].direct.info('persistence')),

    /** Empty every master and wait until none has an AOF rewrite running or scheduled. */
    async reset() {
      await each((r) => r.flushall());
      await each(waitNoRewrite);
      await each((r) => r.bgrewriteaof().catch(() => undefined));
      await sleep(50);
      await each(waitNoRewrite);
    },

    async memory() {
      const per = await each((r) => r.info('memory'));
      return per.reduce((s, m) => s + infoField(m, 'used_memory'), 0);
    },

    async resetStats() {
      await each((r) => r.config('RESETSTAT'));
    },

    /** INFO commandstats summed over the masters, top `top` commands by total time. */
    async commandStats(top = 8, perUnits) {
      const sum = new Map();
      for (const info of await each((r) => r.info('commandstats'))) {
        for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
          const row = sum.get(m[1]) ?? { cmd: m[1], calls: 0, usec: 0 };
          row.calls += Number(m[2]);
          row.usec += Number(m[3]);
          sum.set(m[1], row);
        }
      }
      return [...sum.values()]
        .sort((a, b) => b.usec - a.usec)
        .slice(0, top)
        .map((r) => ({
          ...r,
          usec_per_call: Math.round((r.usec / r.calls) * 10) / 10,
          ...(perUnits ? { usec_per_email: Math.round((r.usec / perUnits) * 10) / 10 } : {}),
        }));
    },

    async rewrites() {
      const per = await each((r) => r.info('persistence'));
      return per.reduce((s, p) => s + infoField(p, 'aof_rewrites'), 0);
    },

    /** CPU seconds (sys + user) of each master's own process, by port: the per-master load. */
    async cpuPerMaster() {
      const per = await each((r) => r.info('cpu'));
      return Object.fromEntries(
        nodes.map((n, i) => [n.port, infoField(per[i], 'used_cpu_sys') + infoField(per[i], 'used_cpu_user')]),
      );
    },

    /** Keys per master (DBSIZE): how evenly the data is spread. */
    async keysPerMaster() {
      const per = await each((r) => r.dbsize());
      return Object.fromEntries(nodes.map((n, i) => [n.port, per[i]]));
    },

    async stop() {
      await client.quit().catch(() => undefined);
      await stopNodes();
    },
  };
}
