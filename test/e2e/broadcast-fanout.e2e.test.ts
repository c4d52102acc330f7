/**
 * Broadcast fan-out end to end.
 *
 * On one node, in process (scenarios/broadcasts.ts, also run on a Redis Cluster by
 * audience-cluster.e2e.test.ts): personalised send-now with unsubscribe and skips, scheduled
 * send, cancel mid fan-out.
 *
 * At scale, with the built API, worker and scheduler as real child processes (so `kill -9` is
 * real) against a redis-server with AOF and an SMTP sink in its own process that writes a ledger
 * line before every 250:
 *  - a 100,000-contact broadcast is delivered exactly once to every eligible contact (the
 *    contacts are written through ContactsStore.upsertMany, not 100,000 API calls);
 *  - chaos: the scheduler is killed mid fan-out (twice) and a worker mid delivery; after the
 *    restarts every eligible contact has its email, none an ineligible one, and duplicates stay
 *    within the at-least-once window (≤ worker kills × concurrency; the fan-out adds none).
 * Each prints its figures.
 */
import { Resend } from 'resend';
import { describe, expect, it } from 'vitest';
import { waitUntil, type NodeProcess } from '@petrel/testing';
import { ContactsStore, Keys, SuppressionsStore, createRedis, type RedisClient } from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import {
  cleanupsAfterEach,
  fileStack,
  startApiApp,
  startApp,
  startProcessBase,
  startWorkerApp,
  type ProcessBase,
} from './helpers.js';
import { broadcastScenarios } from './scenarios/broadcasts.js';

describe('broadcasts on one Redis, in process', () => {
  const stack = fileStack();
  broadcastScenarios(() => stack);
});

const CONCURRENCY = 30;
const FROM = 'Acme <news@acme.test>';

const cleanups = cleanupsAfterEach();

interface Deployment extends ProcessBase {
  resend: Resend;
  admin: RedisClient;
  keys: Keys;
  queues: SendQueues;
  teamId: string;
  worker: NodeProcess;
  scheduler: NodeProcess;
  startWorker(): Promise<NodeProcess>;
  startScheduler(): Promise<NodeProcess>;
}

async function deploy(opts: { replyDelayMs: number }): Promise<Deployment> {
  const { redis, sink, prefix } = await startProcessBase('fanout', opts, cleanups);
  const keys = new Keys(prefix);
  const admin = createRedis(redis.url);
  const queues = new SendQueues(admin, { prefix: keys.bullPrefix() });
  cleanups.push(async () => {
    await queues.close();
    await admin.quit();
  });
  const common = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: prefix, LOG_LEVEL: 'info' };
  const { resend } = await startApiApp(common, cleanups);
  const startWorker = () =>
    startWorkerApp(
      {
        ...common,
        LOG_LEVEL: 'warn',
        SMTP_URL: sink.url,
        WORKER_BROADCAST_CONCURRENCY: String(CONCURRENCY),
      },
      CONCURRENCY,
      cleanups,
    );
  const startScheduler = async (): Promise<NodeProcess> => {
    const s = await startApp('scheduler', {
      ...common,
      // test-sized takeover of a dead scheduler's fan-out (production: 10 s + 5 s)
      FANOUT_LOCK_DURATION_MS: '2000',
      FANOUT_STALLED_INTERVAL_MS: '1000',
    });
    cleanups.push(() => s.stop());
    return s;
  };
  const [worker, scheduler] = await Promise.all([startWorker(), startScheduler()]);
  const [teamId] = await admin.smembers(keys.teams());
  return {
    redis,
    sink,
    prefix,
    resend,
    admin,
    keys,
    queues,
    teamId: teamId!,
    worker,
    scheduler,
    startWorker,
    startScheduler,
  };
}

/** Contacts per store call while writing an audience (an import's batch). */
const AUDIENCE_CHUNK = 5_000;
/**
 * Store calls in flight while writing an audience: Redis runs one call's script while this
 * process plans the next (the chunks' addresses are disjoint, so no write waits for another).
 */
const AUDIENCE_WRITES = 4;

/**
 * A segment of `count` contacts `u<i>@fan.test` written through the store, every 97th
 * unsubscribed and every 89th suppressed; returns the segment and the eligible addresses.
 */
async function audience(d: Deployment, count: number): Promise<{ segmentId: string; eligible: Set<string> }> {
  const { data, error } = await d.resend.segments.create({ name: 'everyone' });
  expect(error).toBeNull();
  const segmentId = data!.id;
  const contacts = new ContactsStore(d.admin, d.keys);
  const suppressions = new SuppressionsStore(d.admin, d.keys);
  const eligible = new Set<string>();
  for (let i = 0; i < count; i++) if (i % 97 !== 0 && i % 89 !== 0) eligible.add(`u${i}@fan.test`);
  let next = 0;
  const writer = async (): Promise<void> => {
    for (;;) {
      const i = next;
      if (i >= count) return;
      next += AUDIENCE_CHUNK;
      const rows = Array.from({ length: Math.min(AUDIENCE_CHUNK, count - i) }, (_, j) => ({
        email: `u${i + j}@fan.test`,
        unsubscribed: (i + j) % 97 === 0,
      }));
      await contacts.upsertMany(d.teamId, rows, { onConflict: 'upsert', segments: [segmentId], topics: [] });
      const suppressed = rows.filter((_, j) => (i + j) % 89 === 0).map((r) => r.email);
      await suppressions.addMany(d.teamId, suppressed, 'manual', null);
    }
  };
  await Promise.all(Array.from({ length: AUDIENCE_WRITES }, writer));
  return { segmentId, eligible };
}

async function sendBroadcast(d: Deployment, segmentId: string): Promise<string> {
  const created = await d.resend.broadcasts.create({
    segmentId,
    from: FROM,
    subject: 'Hello {{{contact.first_name|friend}}}',
    html: '<p>Hi {{{contact.email}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
  });
  expect(created.error).toBeNull();
  const sent = await d.resend.broadcasts.send(created.data!.id);
  expect(sent.error).toBeNull();
  return created.data!.id;
}

const broadcastField = (d: Deployment, id: string, field: string) =>
  d.admin.hget(d.keys.broadcast(d.teamId, id), field);

/** The broadcast is `sent` and the broadcast lane holds no job that could still send. */
async function finished(d: Deployment, id: string, timeoutMs: number): Promise<void> {
  await waitUntil(async () => (await broadcastField(d, id, 'status')) === 'sent', {
    timeoutMs,
    intervalMs: 250,
    message: 'the broadcast to be sent',
  });
  await waitUntil(
    async () => {
      const c = (await d.queues.counts()).broadcast;
      return (c.waiting ?? 0) + (c.active ?? 0) + (c.delayed ?? 0) + (c.prioritized ?? 0) === 0;
    },
    { timeoutMs, intervalMs: 500, message: 'the broadcast lane to drain' },
  );
}

/** Messages per recipient, from the sink's ledger (written before each 250). */
async function perRecipient(d: Deployment): Promise<Map<string, number>> {
  const seen = new Map<string, number>();
  for (const entry of await d.sink.readLedger())
    for (const to of entry.to) seen.set(to, (seen.get(to) ?? 0) + 1);
  return seen;
}

function tally(seen: Map<string, number>, eligible: Set<string>) {
  let duplicates = 0;
  for (const n of seen.values()) duplicates += n - 1;
  return {
    missing: [...eligible].filter((a) => !seen.has(a)),
    ineligible: [...seen.keys()].filter((a) => !eligible.has(a)),
    duplicates,
    delivered: seen.size,
  };
}

describe('broadcasts at scale, as processes', () => {
  it('a 100,000-contact broadcast reaches every eligible contact exactly once', async () => {
    const d = await deploy({ replyDelayMs: 0 });
    // a second worker process (the lane is shared, as in a scaled deployment), started while the
    // contacts are written
    const secondWorker = d.startWorker();
    const t0 = Date.now();
    const { segmentId, eligible } = await audience(d, 100_000);
    const setupMs = Date.now() - t0;
    await secondWorker;
    const t1 = Date.now();
    const id = await sendBroadcast(d, segmentId);
    await waitUntil(async () => (await broadcastField(d, id, 'status')) === 'sent', {
      timeoutMs: 300_000,
      intervalMs: 250,
      message: 'the fan-out to finish',
    });
    const fanoutMs = Date.now() - t1;
    await finished(d, id, 600_000);
    const totalMs = Date.now() - t1;
    const result = tally(await perRecipient(d), eligible);
    console.log(
      `100k broadcast: ${eligible.size} eligible; contacts written in ${setupMs} ms; fan-out ${fanoutMs} ms ` +
        `(${Math.round(100_000 / (fanoutMs / 1000))} contacts/s); delivered ${result.delivered} in ${totalMs} ms; ` +
        `duplicates ${result.duplicates}`,
    );
    expect(result.missing).toEqual([]);
    expect(result.ineligible).toEqual([]);
    expect(result.duplicates).toBe(0);
    expect(await broadcastField(d, id, 'total')).toBe('100000');
    expect(Number(await broadcastField(d, id, 'enqueued'))).toBe(eligible.size);
  }, 900_000);

  it('chaos: kill -9 the scheduler mid fan-out (twice) and a worker mid delivery — every eligible contact gets its email', async () => {
    // A slow relay (the sink answers 250 50 ms after recording) keeps sends in flight, so the
    // worker's kill lands between "received" and "250 seen": the at-least-once window.
    const d = await deploy({ replyDelayMs: 50 });
    // big enough that two kills land mid fan-out (pages of 1,000), small enough for CI
    const { segmentId, eligible } = await audience(d, 12_000);
    const id = await sendBroadcast(d, segmentId);
    const startedMs = await waitUntil(async () => (await broadcastField(d, id, 'started_ms')) ?? undefined, {
      timeoutMs: 30_000,
      message: 'the fan-out to start',
    });
    let schedulerKills = 0;
    for (const threshold of [2_000, 6_000]) {
      await waitUntil(async () => Number(await broadcastField(d, id, 'total')) >= threshold, {
        timeoutMs: 60_000,
        intervalMs: 10,
        message: `the fan-out to pass ${threshold} contacts`,
      });
      if ((await broadcastField(d, id, 'status')) !== 'queued') break;
      d.scheduler.kill('SIGKILL');
      await d.scheduler.exited();
      schedulerKills++;
      d.scheduler = await d.startScheduler();
    }
    // the worker, once mail flows
    await d.sink.waitFor(3_000, 120_000);
    d.worker.kill('SIGKILL');
    await d.worker.exited();
    d.worker = await d.startWorker();
    await finished(d, id, 600_000);
    const result = tally(await perRecipient(d), eligible);
    console.log(
      `chaos: ${eligible.size} eligible, scheduler killed ${schedulerKills}× mid fan-out, worker killed 1×; ` +
        `delivered ${result.delivered}, missing ${result.missing.length}, duplicates ${result.duplicates}`,
    );
    expect(schedulerKills).toBeGreaterThanOrEqual(1);
    // the last scheduler took the stalled fan-out over from its checkpoint
    expect(d.scheduler.output()).toContain('broadcast fan-out resumed from its checkpoint');
    // the resumed fan-out kept its start, hence its email ids
    expect(await broadcastField(d, id, 'started_ms')).toBe(startedMs);
    expect(result.missing).toEqual([]);
    expect(result.ineligible).toEqual([]);
    expect(result.duplicates).toBeLessThanOrEqual(CONCURRENCY);
    expect(Number(await broadcastField(d, id, 'enqueued'))).toBe(eligible.size);
  }, 900_000);
});
