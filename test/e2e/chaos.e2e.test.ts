/**
 * Chaos scenarios (crashes and outages under load), sized for 2 cores: the built API and worker
 * apps run as real child processes (so `kill -9` is real) against a real redis-server with AOF
 * and an SMTP sink in its own process that writes a ledger line before every 250.
 *
 *  R1  worker kill -9 under load: lost = 0, phantom = 0, duplicates ≤ kills × concurrency,
 *      0 failed jobs, every email `delivered`.
 *  R2  graceful shutdown: SIGTERM each worker once mid-load: in-flight sends finish, nothing is
 *      lost or sent twice, each process exits 0 within 10 s, no job stalls.
 *  R3  API kill -9 while clients send with Idempotency-Keys and retry: every key maps to one
 *      email id across all its responses, the sink holds each email exactly once, and a replay
 *      of every key afterwards returns the same body and sends nothing.
 *  R4  redis-server kill -9 and restart on the same AOF: every email acknowledged before the
 *      kill is delivered; the API answers 503 within 2 s while Redis is down; the workers carry
 *      on by themselves (no process restart); duplicates ≤ concurrency × workers.
 *  R5  a long Redis outage while the workers are idle (15 s, longer than BullMQ's drainDelay):
 *      after Redis returns, new emails are delivered within 10 s by the same worker processes.
 *  R6  `CLIENT KILL` of every normal and pub/sub connection, 5 times, while emails flow:
 *      nothing lost, and the processes keep running.
 *
 * Each test prints its figures (delivered, duplicates, time to drain) — the numbers the
 * scenarios report.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Resend } from 'resend';
import { describe, expect, it } from 'vitest';
import { freePort, pingRedis, waitUntil, type NodeProcess } from '@petrel/testing';
import { Keys } from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import {
  cleanupsAfterEach,
  email,
  startApp,
  startProcessBase,
  startWorkerApp,
  type ProcessBase,
} from './helpers.js';

const CONCURRENCY = 20;

interface Cluster extends ProcessBase {
  api: NodeProcess;
  apiUrl: string;
  workers: NodeProcess[];
  resend: Resend;
  key: string;
  /** The test's own connection, for reading records and job counts. */
  admin: Redis;
  queues: SendQueues;
  startWorker(): Promise<NodeProcess>;
  /** A new API process on the same port (after the old one was killed). */
  startApi(): Promise<NodeProcess>;
}

const cleanups = cleanupsAfterEach();

const httpOk = (url: string) => async () => (await fetch(url)).ok;

async function startCluster(opts: {
  workers: number;
  sendRate: number;
  replyDelayMs: number;
}): Promise<Cluster> {
  const { redis, sink, prefix } = await startProcessBase(
    'chaos',
    { replyDelayMs: opts.replyDelayMs },
    cleanups,
  );
  const admin = new Redis(redis.url, { maxRetriesPerRequest: 3 });
  const queues = new SendQueues(admin, { prefix: `${prefix}:bull` });
  // Redis is killed on purpose in these tests: connection errors are expected, not news
  admin.on('error', () => undefined);
  for (const q of Object.values(queues.queues)) q.on('error', () => undefined);
  cleanups.push(async () => {
    await queues.close();
    admin.disconnect();
  });
  const key = `re_chaos_${randomBytes(12).toString('hex')}`;
  // the API alone checks `from` domains by default: these emails come from no domain of the team
  const common = {
    REDIS_URL: redis.url,
    REDIS_KEY_PREFIX: prefix,
    LOG_LEVEL: 'warn',
    ENFORCE_VERIFIED_DOMAINS: 'false',
  };

  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const startApi = async (): Promise<NodeProcess> => {
    const api = await startApp('api', {
      ...common,
      PORT: String(apiPort),
      METRICS_PORT: '0', // any free port: a fixed one could be taken by others between restarts
      BOOTSTRAP_API_KEY: key,
      IDEMPOTENCY_LOCK_MS: '2000', // test-sized (production: 60 s)
    });
    cleanups.push(() => api.stop());
    return api;
  };
  const api = await startApi();

  const startWorker = () =>
    startWorkerApp(
      {
        ...common,
        SMTP_URL: sink.url,
        SMTP_CONNECTION_TIMEOUT_MS: '3000',
        SMTP_SOCKET_TIMEOUT_MS: '5000',
        WORKER_SEND_RATE: String(opts.sendRate),
        WORKER_MAX_STALLED_COUNT: '2',
      },
      CONCURRENCY,
      cleanups,
    );
  const workers = await Promise.all(Array.from({ length: opts.workers }, () => startWorker()));
  return {
    redis,
    sink,
    api,
    apiUrl,
    workers,
    resend: new Resend(key, { baseUrl: apiUrl }),
    prefix,
    key,
    admin,
    queues,
    startWorker,
    startApi,
  };
}

/** Accepts `batches` × 100 emails through the SDK; returns every accepted id. */
async function acceptBatches(c: Cluster, batches: number, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let b = 0; b < batches; b++) {
    const res = await c.resend.batch.send(
      Array.from({ length: 100 }, (_, i) =>
        email(b * 100 + i, { subject: `${tag} ${b * 100 + i}` }),
      ) as never,
    );
    if (res.error) throw new Error(`batch ${b}: ${res.error.name}: ${res.error.message}`);
    ids.push(...res.data!.data.map((d) => d.id));
  }
  return ids;
}

interface Tally {
  /** Accepted ids that never reached the sink. */
  lost: string[];
  /** Messages at the sink that no accepted id explains. */
  phantom: string[];
  /** Extra copies of accepted emails (total messages − distinct). */
  duplicates: number;
  delivered: number;
}

async function tally(c: Cluster, ids: string[]): Promise<Tally> {
  const seen = new Map<string, number>();
  for (const entry of await c.sink.readLedger()) {
    const id = /^<([^@>]+)@/.exec(entry.messageId)?.[1] ?? entry.messageId;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  const accepted = new Set(ids);
  let duplicates = 0;
  for (const n of seen.values()) duplicates += n - 1;
  return {
    lost: ids.filter((id) => !seen.has(id)),
    phantom: [...seen.keys()].filter((id) => !accepted.has(id)),
    duplicates,
    delivered: [...seen.keys()].filter((id) => accepted.has(id)).length,
  };
}

/** Statuses of the email records, counted (read straight from Redis). */
async function statuses(c: Cluster, ids: string[]): Promise<Record<string, number>> {
  const keys = new Keys(c.prefix);
  const counts: Record<string, number> = {};
  for (const team of await c.admin.smembers(keys.teams())) {
    const pipe = c.admin.pipeline();
    for (const id of ids) pipe.hget(keys.email(team, id), 'status');
    for (const [, st] of (await pipe.exec()) ?? []) {
      if (typeof st === 'string') counts[st] = (counts[st] ?? 0) + 1;
    }
  }
  return counts;
}

async function jobCounts(c: Cluster) {
  return (await c.queues.counts()).send;
}

/** Every accepted email delivered and recorded as such, and no job left anywhere. */
async function waitForDrain(c: Cluster, ids: string[], timeoutMs: number): Promise<number> {
  const started = Date.now();
  await waitUntil(
    async () => {
      if ((await c.sink.count()) < ids.length) return false;
      if ((await statuses(c, ids)).delivered !== ids.length) return false;
      const jobs = await jobCounts(c);
      return (jobs.waiting ?? 0) + (jobs.active ?? 0) + (jobs.delayed ?? 0) + (jobs.prioritized ?? 0) === 0;
    },
    { timeoutMs, intervalMs: 500, message: `${ids.length} emails delivered and every job finished` },
  );
  return Date.now() - started;
}

/**
 * A pause that paces the scenario itself (a client's back-off, how long an outage lasts, how
 * far apart the disconnects are), never one that waits for an outcome: outcomes are polled.
 */
const pace = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Resolves once the sink holds `n` more messages than now (or every one of `total`): the load
 * is flowing, so what comes next (a kill) lands in the middle of it.
 */
async function flowed(c: Cluster, n: number, total: number): Promise<void> {
  const now = await c.sink.count();
  await c.sink.waitFor(Math.min(now + n, total), 30_000);
}

describe('chaos (scenarios R1–R6 above, 2-core sizes)', () => {
  it('R1: kill -9 a worker 4 times under load, restarting it — nothing lost, no phantom, duplicates bounded', async () => {
    // The sink answers 250 100 ms after it has recorded a message (a slow relay), and the lanes
    // send 300/s: ~15 sends in flight per worker, so every kill lands on sends the sink already
    // has but the worker has not seen acknowledged — the duplicate window at-least-once allows
    // (RFC 1047), at most one per job in flight (the hard bound: kills × concurrency).
    const c = await startCluster({ workers: 2, sendRate: 300, replyDelayMs: 100 });
    const ids = await acceptBatches(c, 30, 'r1'); // 3,000 emails, ~10 s of sending
    const kills = 4;
    for (let k = 0; k < kills; k++) {
      await flowed(c, 300, ids.length); // ~1 s of sending since the last restart
      const victim = Math.floor(Math.random() * c.workers.length);
      c.workers[victim]!.kill('SIGKILL');
      await c.workers[victim]!.exited();
      c.workers[victim] = await c.startWorker(); // the supervisor's restart
    }
    const drainMs = await waitForDrain(c, ids, 90_000);
    const t = await tally(c, ids);
    const jobs = await jobCounts(c);
    console.log(
      `R1: ${ids.length} accepted, ${t.delivered} delivered, lost ${t.lost.length}, phantom ${t.phantom.length}, ` +
        `duplicates ${t.duplicates} (bound ${kills * CONCURRENCY}), failed jobs ${jobs.failed}, drained ${drainMs} ms after the last kill`,
    );
    expect(t.lost).toEqual([]);
    expect(t.phantom).toEqual([]);
    expect(t.duplicates).toBeLessThanOrEqual(kills * CONCURRENCY);
    expect(jobs.failed).toBe(0);
    expect(await statuses(c, ids)).toEqual({ delivered: ids.length });
  }, 180_000);

  it('R2: SIGTERM each worker once mid-load — in-flight sends finish, exit 0 within 10 s, nothing lost or doubled', async () => {
    // a slow relay (100 ms per 250) keeps ~15 sends in flight per worker when the signal arrives
    const c = await startCluster({ workers: 2, sendRate: 300, replyDelayMs: 100 });
    const ids = await acceptBatches(c, 20, 'r2'); // 2,000 emails, ~7 s at 300/s
    const exits: { code: number | null; ms: number }[] = [];
    for (let k = 0; k < c.workers.length; k++) {
      await flowed(c, 400, ids.length); // ~1.5 s of sending since the last restart
      const w = c.workers[k]!;
      const t0 = Date.now();
      w.kill('SIGTERM');
      await w.exited();
      exits.push({ code: w.child.exitCode, ms: Date.now() - t0 });
      expect(w.output()).not.toMatch(/stalled/i);
      c.workers[k] = await c.startWorker();
    }
    await waitForDrain(c, ids, 60_000);
    const t = await tally(c, ids);
    const stalled = c.workers.map((w) => w.output()).filter((o) => /stalled/i.test(o));
    console.log(
      `R2: ${t.delivered} delivered, lost ${t.lost.length}, duplicates ${t.duplicates}, exits ${JSON.stringify(exits)}`,
    );
    expect(exits.every((e) => e.code === 0 && e.ms <= 10_000)).toBe(true);
    expect(stalled).toEqual([]);
    expect(t.lost).toEqual([]);
    expect(t.phantom).toEqual([]);
    expect(t.duplicates).toBe(0);
  }, 120_000);

  it('R3: kill -9 the API 3 times while clients send with Idempotency-Keys and retry — one id per key, each email sent once', async () => {
    const c = await startCluster({ workers: 2, sendRate: 0, replyDelayMs: 0 });
    const total = 600;
    const clients = 12;
    const firstBody = new Map<string, string>(); // key → the body of its first 200
    const retries: Record<string, number> = {};
    let next = 0;
    const send = async (i: number): Promise<void> => {
      const idempotencyKey = `r3-${i}`;
      const payload = email(i, { subject: `r3 ${i}` });
      for (;;) {
        const res = await c.resend.emails.send(payload as never, { idempotencyKey });
        if (res.data) {
          firstBody.set(idempotencyKey, JSON.stringify(res.data));
          return;
        }
        const e = res.error as { statusCode?: number | null; name: string; message: string };
        // what a careful client retries with the same key: the network failed (API killed), the
        // service is unavailable, or the first attempt still holds the key (its lock expires)
        const retryable =
          e.statusCode == null || e.statusCode >= 500 || e.name === 'concurrent_idempotent_requests';
        if (!retryable) throw new Error(`${idempotencyKey}: ${e.statusCode} ${e.name}: ${e.message}`);
        const kind = e.statusCode == null ? 'network' : e.name;
        retries[kind] = (retries[kind] ?? 0) + 1;
        await pace(100); // the client's back-off before it retries
      }
    };
    const loops = Array.from({ length: clients }, async () => {
      for (let i = next++; i < total; i = next++) await send(i);
    });
    const chaos = (async () => {
      for (let k = 0; k < 3; k++) {
        // the clients got 50 more answers since the last restart: the kill lands mid-traffic
        const answered = firstBody.size;
        await waitUntil(() => firstBody.size >= Math.min(answered + 50, total), {
          timeoutMs: 30_000,
          message: 'the clients to get answers from the API',
        });
        c.api.kill('SIGKILL');
        await c.api.exited();
        c.api = await c.startApi(); // the supervisor's restart, same port
      }
    })();
    await Promise.all([...loops, chaos]);

    const ids = [...firstBody.values()].map((b) => (JSON.parse(b) as { id: string }).id);
    expect(new Set(ids).size).toBe(total); // one distinct id per key
    await waitForDrain(c, ids, 60_000);
    // A replay of every key now: byte-identical bodies, nothing new accepted or sent.
    for (let i = 0; i < total; i++) {
      const res = await c.resend.emails.send(email(i, { subject: `r3 ${i}` }) as never, {
        idempotencyKey: `r3-${i}`,
      });
      expect(JSON.stringify(res.data)).toBe(firstBody.get(`r3-${i}`));
    }
    // a replay that queued a send would show in the sink once no job is left
    await waitForDrain(c, ids, 30_000);
    const t = await tally(c, ids);
    console.log(
      `R3: ${total} keys, client retries across 3 API kills ${JSON.stringify(retries)}, ${t.delivered} delivered, ` +
        `lost ${t.lost.length}, phantom ${t.phantom.length}, duplicates ${t.duplicates}`,
    );
    expect(t.lost).toEqual([]);
    expect(t.phantom).toEqual([]);
    expect(t.duplicates).toBe(0);
    expect(await c.sink.count()).toBe(total);
  }, 180_000);

  it('R4: kill -9 redis-server mid-flow and restart it on the same AOF — acknowledged emails are all delivered, the API says 503 meanwhile', async () => {
    const c = await startCluster({ workers: 2, sendRate: 0, replyDelayMs: 20 });
    const ids = await acceptBatches(c, 30, 'r4'); // 3,000 emails, a few seconds of sending
    await c.sink.waitFor(500, 30_000); // well into the flow

    c.redis.kill('SIGKILL');
    // While Redis is down the API answers 503 quickly instead of hanging.
    await waitUntil(async () => !(await pingRedis(c.redis.host, c.redis.port, 200)), {
      timeoutMs: 5_000,
      message: 'redis-server to be down',
    });
    const t0 = Date.now();
    const res = await fetch(`${c.apiUrl}/emails/batch`, {
      method: 'POST',
      headers: { authorization: `Bearer ${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify([email(1)]),
    });
    const downMs = Date.now() - t0;
    expect(res.status).toBe(503);
    expect(((await res.json()) as { name: string }).name).toBe('service_unavailable');
    expect(downMs).toBeLessThanOrEqual(2_000);

    await pace(2_500); // how long the outage lasts
    await c.redis.restart(); // same port, same AOF
    const back = Date.now();
    // The workers carry on by themselves: the same processes, no restart.
    const pids = c.workers.map((w) => w.pid);
    const drainMs = await waitForDrain(c, ids, 90_000);
    const t = await tally(c, ids);
    console.log(
      `R4: ${ids.length} acknowledged before the kill, ${t.delivered} delivered, lost ${t.lost.length}, ` +
        `phantom ${t.phantom.length}, duplicates ${t.duplicates} (bound ${2 * CONCURRENCY}), API 503 in ${downMs} ms, ` +
        `drained ${drainMs} ms after Redis returned`,
    );
    expect(c.workers.map((w) => w.pid)).toEqual(pids);
    expect(c.workers.every((w) => w.child.exitCode === null)).toBe(true);
    expect(t.lost).toEqual([]);
    expect(t.phantom).toEqual([]);
    expect(t.duplicates).toBeLessThanOrEqual(2 * CONCURRENCY);
    expect(Date.now() - back).toBeLessThan(90_000);
  }, 180_000);

  it('R5: Redis down for 15 s while the workers are idle — afterwards new emails are delivered within 10 s', async () => {
    const c = await startCluster({ workers: 2, sendRate: 0, replyDelayMs: 0 });
    const warmup = await acceptBatches(c, 1, 'r5-warmup');
    await waitForDrain(c, warmup, 30_000);
    const pids = c.workers.map((w) => w.pid);

    c.redis.kill('SIGTERM'); // a clean stop: the AOF is complete
    await pace(15_000); // the outage this scenario is about
    await c.redis.restart();
    await waitUntil(httpOk(`${c.apiUrl}/ready`), { timeoutMs: 10_000, message: 'the API to be ready again' });

    const t0 = Date.now();
    const ids = await acceptBatches(c, 1, 'r5');
    const drainMs = await waitForDrain(c, [...warmup, ...ids], 10_000);
    console.log(
      `R5: 100 emails delivered ${Date.now() - t0} ms after enqueueing (drain check ${drainMs} ms)`,
    );
    expect(c.workers.map((w) => w.pid)).toEqual(pids);
    const t = await tally(c, [...warmup, ...ids]);
    expect(t.lost).toEqual([]);
    expect(t.duplicates).toBe(0);
  }, 120_000);

  it('R6: CLIENT KILL of every connection 5 times, 1 s apart, while emails flow — nothing lost, processes unharmed', async () => {
    const c = await startCluster({ workers: 2, sendRate: 400, replyDelayMs: 0 });
    const ids = await acceptBatches(c, 30, 'r6'); // 3,000 emails, ~7.5 s at 400/s
    const admin = new Redis(c.redis.url);
    try {
      for (let k = 0; k < 5; k++) {
        await pace(1_000); // the scenario's spacing of the disconnects
        await admin.call('CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes');
        await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub', 'SKIPME', 'yes');
      }
    } finally {
      admin.disconnect();
    }
    const drainMs = await waitForDrain(c, ids, 60_000);
    const t = await tally(c, ids);
    console.log(
      `R6: ${t.delivered} delivered, lost ${t.lost.length}, phantom ${t.phantom.length}, duplicates ${t.duplicates}, drained ${drainMs} ms after the last kill`,
    );
    expect(t.lost).toEqual([]);
    expect(t.phantom).toEqual([]);
    expect([c.api, ...c.workers].every((p) => p.child.exitCode === null && p.child.signalCode === null)).toBe(
      true,
    );
    // the API still answers, and no process logged an unhandled rejection or exception
    const after = await c.resend.batch.send([email(1)] as never);
    expect(after.error).toBeNull();
    for (const p of [c.api, ...c.workers]) expect(p.output()).not.toMatch(/unhandled|uncaught/i);
  }, 120_000);
});
