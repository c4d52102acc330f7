// Starting the two systems under test on the bench's Redis and sink:
//   Petrel:   apps/api/dist/main.js and N × apps/worker/dist/main.js (the built product)
//   baseline: bench/baseline/ingest-server.mjs and N × bench/baseline/delivery-worker.mjs
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { sendQueueNames } from '@petrel/contracts';
import { spawnNode } from './proc.mjs';
import { freePort, httpJson, waitUntil } from './util.mjs';
import { uuidv7 } from './payload.mjs';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const API_MAIN = join(ROOT, 'apps/api/dist/main.js');
export const WORKER_MAIN = join(ROOT, 'apps/worker/dist/main.js');
const BASE_INGEST = fileURLToPath(new URL('../baseline/ingest-server.mjs', import.meta.url));
const BASE_WORKER = fileURLToPath(new URL('../baseline/delivery-worker.mjs', import.meta.url));

export const API_KEY = 're_bench_0123456789abcdef';
export const PETREL_PREFIX = 'pt';
/** The queues of Petrel's send lane: one per QUEUE_SHARDS of the Petrel under test (ctx.petrelEnv). */
export function petrelSendQueues(ctx) {
  return sendQueueNames('send', Number(ctx.petrelEnv?.QUEUE_SHARDS ?? 1));
}
export const BASE_PREFIX = 'base:bull';
export const BASE_QUEUE = 'baseline-send';

export function petrelBuilt() {
  return existsSync(API_MAIN) && existsSync(WORKER_MAIN);
}

/**
 * Extra node flags for a process kind ('api' | 'worker' | 'baseline-api' | 'baseline-worker', or
 * a phase's own kinds, e.g. the webhooks phase's 'dispatcher' | 'baseline-dispatcher').
 */
export function profileArgs(ctx, kind) {
  const wanted = ctx.opts.profile;
  if (!wanted || !(wanted === 'all' || wanted.split(',').includes(kind))) return [];
  const dir = join(ctx.outDir, 'profiles', `${ctx.phase ?? 'run'}-${kind}`);
  mkdirSync(dir, { recursive: true });
  return ['--cpu-prof', '--cpu-prof-dir', dir];
}

/** Resolves once a GET of `url` answers 200; fails at once if `child` exits meanwhile. */
function answers(child, url, what) {
  return waitUntil(
    async () => {
      child.assertAlive();
      return (await httpJson('GET', url, { timeoutMs: 1000 })).status === 200;
    },
    { what, timeoutMs: 20_000 },
  );
}

// ---------------------------------------------------------------- Petrel

/**
 * A Petrel process (`main`, one of apps/<app>/dist/main.js) on the bench's Redis with its own
 * metrics port, once its /ready answers 200. `env` comes last (over the run's PETREL env).
 */
export async function startPetrelProcess(ctx, { name, main, what, env = {}, nodeArgs = [] }) {
  const metricsPort = await freePort();
  const child = spawnNode(name, main, {
    cwd: ROOT,
    nodeArgs,
    env: {
      REDIS_URL: ctx.redis.url,
      REDIS_KEY_PREFIX: PETREL_PREFIX,
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      ...ctx.petrelEnv,
      ...env,
    },
  });
  await answers(child, `http://127.0.0.1:${metricsPort}/ready`, `${what} /ready`);
  return { child, metricsPort };
}

export async function startPetrelApi(ctx, env = {}) {
  const port = await freePort();
  const metricsPort = await freePort();
  const child = spawnNode('petrel-api', API_MAIN, {
    cwd: ROOT,
    nodeArgs: profileArgs(ctx, 'api'),
    env: {
      REDIS_URL: ctx.redis.url,
      REDIS_KEY_PREFIX: PETREL_PREFIX,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
      BOOTSTRAP_API_KEY: API_KEY,
      LOG_LEVEL: 'warn',
      ...ctx.petrelEnv,
      ...env,
    },
  });
  const url = `http://127.0.0.1:${port}`;
  await answers(child, `${url}/ready`, 'Petrel API /ready');
  return {
    kind: 'petrel',
    child,
    url,
    port,
    metricsPort,
    headers: { authorization: `Bearer ${API_KEY}` },
    stop: () => child.stop(),
  };
}

export async function startPetrelWorkers(ctx, n, { concurrency, pool, env = {} } = {}) {
  const workers = [];
  for (let i = 0; i < n; i++) {
    const metricsPort = await freePort();
    const child = spawnNode(`petrel-worker${i + 1}`, WORKER_MAIN, {
      cwd: ROOT,
      nodeArgs: profileArgs(ctx, 'worker'),
      env: {
        REDIS_URL: ctx.redis.url,
        REDIS_KEY_PREFIX: PETREL_PREFIX,
        SMTP_URL: ctx.sink.url,
        METRICS_PORT: String(metricsPort),
        LOG_LEVEL: 'warn',
        WORKER_CONCURRENCY: String(concurrency ?? ctx.opts.concurrency),
        SMTP_POOL_SIZE: String(pool ?? ctx.opts.pool),
        ...ctx.petrelEnv,
        ...env,
      },
    });
    workers.push({ child, metricsPort, name: `worker${i + 1}` });
  }
  return {
    workers,
    children: workers.map((w) => w.child),
    /** Resolves when every worker answers /health (they may already be sending). */
    ready: () =>
      Promise.all(
        workers.map((w) => answers(w.child, `http://127.0.0.1:${w.metricsPort}/health`, `${w.name} /health`)),
      ),
    /** The worker's own accept-to-delivered histogram (cross-check of the sink's figure). */
    metrics: () =>
      Promise.all(
        workers.map((w) => httpJson('GET', `http://127.0.0.1:${w.metricsPort}/metrics`).then((r) => r.text)),
      ),
    stop: () => Promise.all(workers.map((w) => w.child.stop(15_000))),
  };
}

// ---------------------------------------------------------------- baseline

export async function startBaselineApi(ctx) {
  const port = await freePort();
  const child = spawnNode('baseline-api', BASE_INGEST, {
    nodeArgs: profileArgs(ctx, 'baseline-api'),
    env: { REDIS_URL: ctx.redis.url, PORT: String(port), BULL_PREFIX: BASE_PREFIX, QUEUE: BASE_QUEUE },
  });
  const url = `http://127.0.0.1:${port}`;
  await answers(child, `${url}/health`, 'baseline API');
  return { kind: 'baseline', child, url, port, headers: {}, stop: () => child.stop() };
}

export async function startBaselineWorkers(ctx, n, { concurrency, pool, env = {} } = {}) {
  const workers = [];
  for (let i = 0; i < n; i++) {
    const child = spawnNode(`baseline-worker${i + 1}`, BASE_WORKER, {
      nodeArgs: profileArgs(ctx, 'baseline-worker'),
      env: {
        REDIS_URL: ctx.redis.url,
        BULL_PREFIX: BASE_PREFIX,
        QUEUE: BASE_QUEUE,
        SMTP_URL: ctx.sink.url,
        CONCURRENCY: String(concurrency ?? ctx.opts.concurrency),
        POOL: String(pool ?? ctx.opts.pool),
        ...env,
      },
    });
    workers.push({ child, name: `worker${i + 1}` });
  }
  return {
    workers,
    children: workers.map((w) => w.child),
    ready: async () => undefined,
    metrics: async () => [],
    stop: () => Promise.all(workers.map((w) => w.child.stop(15_000))),
  };
}

/** Pre-fills the baseline queue with the given emails (ids: UUIDv7 of the fill time). */
export async function fillBaselineQueue(ctx, n, emailAt) {
  const connection = new Redis(ctx.redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(BASE_QUEUE, { connection, prefix: BASE_PREFIX });
  try {
    for (let start = 0; start < n; start += 100) {
      const jobs = [];
      const t = Date.now();
      for (let i = start; i < Math.min(n, start + 100); i++) {
        const id = uuidv7(t);
        jobs.push({
          name: 'send',
          data: { id, ...emailAt(i) },
          opts: {
            jobId: id,
            attempts: 12,
            backoff: { type: 'exponential', delay: 60_000 },
            removeOnComplete: true,
          },
        });
      }
      await queue.addBulk(jobs);
    }
  } finally {
    await queue.close();
    await connection.quit().catch(() => undefined);
  }
}

/** Jobs waiting in some queues (BullMQ 6 keeps them in each queue's `wait` list). */
export async function waitingJobs(ctx, prefix, queues) {
  const lengths = await Promise.all(queues.map((queue) => ctx.redis.client.llen(`${prefix}:${queue}:wait`)));
  return lengths.reduce((a, b) => a + b, 0);
}
