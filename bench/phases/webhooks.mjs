// Phase — webhook deliveries. N events (email.sent-shaped, ~600 bytes of data) are on one team's
// events stream when the Petrel dispatcher (apps/webhooks/dist/main.js) starts; it reads them,
// writes their event-log entries and POSTs each, signed, to a local HTTP receiver (in the bench
// process, answering 200 at once) straight from the batch, records it and acknowledges it. Reported: signed deliveries
// per second from the first arrival to the N-th distinct message (start-up not counted). Baseline, same run, same Redis, same
// receiver and concurrency: a bare BullMQ worker (bench/lib/webhook-baseline.mjs) whose N jobs
// carry the body, signing with `standardwebhooks` and POSTing with undici — no stream, no log, no
// endpoint lookup. Target: ≥ 1.0× the baseline.
// Then a steady load: events at a fixed rate for a while, the dispatcher running; the latency of
// each from its XADD (the event's created_at) to its arrival at the receiver, p50/p99, and the
// same for the baseline from its job's add.
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { EVENTS_STREAM_FIELD, Keys, WebhooksStore } from '@petrel/store';
import { newId, newSigningSecret, newWebhookEndpoint } from '@petrel/core';
import { cpuSnapshot } from '../lib/cpu.mjs';
import { spawnNode } from '../lib/proc.mjs';
import { PETREL_PREFIX, ROOT, profileArgs, startPetrelProcess } from '../lib/stacks.mjs';
import { fmtInt, now, percentile, ratio, round, sleep, startHttpReceiver, waitUntil } from '../lib/util.mjs';

export const name = 'webhooks';
export const order = 95;
export const title =
  'Webhook deliveries: signed deliveries/s vs a bare BullMQ + standardwebhooks + undici worker; event→delivery p99';

const SIZES = { full: 20_000, quick: 1_000 };
const STEADY = { full: { rate: 200, seconds: 10 }, quick: { rate: 100, seconds: 2 } };
const CONCURRENCY = 50;
const RATIO_TARGET = 1.0;
const TEAM = 'bench-team';
const DISPATCHER_MAIN = join(ROOT, 'apps/webhooks/dist/main.js');
const BASELINE_MAIN = join(ROOT, 'bench/lib/webhook-baseline.mjs');
const BASE_QUEUE = '{baseline-webhooks}';
const BASE_PREFIX = 'base:bull';

/** The receiver: counts distinct message ids and keeps each one's arrival time. */
async function startReceiver() {
  const arrivals = new Map();
  const receiver = await startHttpReceiver((req, body) => {
    const id = req.headers['webhook-id'];
    if (!arrivals.has(id)) arrivals.set(id, { at: Date.now(), body });
    return 200;
  });
  return { ...receiver, arrivals };
}

function eventBody(i, sentMs) {
  return {
    email_id: randomUUID(),
    created_at: new Date(sentMs).toISOString(),
    message_id: `<${randomUUID()}@bench.example>`,
    from: 'Bench <bench@bench.example>',
    to: [`r${i}@bench.example`],
    subject: `Your receipt #${i}`,
    tags: { kind: 'receipt', plan: 'pro' },
    sent_ms: sentMs,
  };
}

function streamEvent(i) {
  const at = Date.now();
  return JSON.stringify({
    id: newId(at),
    type: 'email.sent',
    created_at: new Date(at).toISOString(),
    teamId: TEAM,
    data: eventBody(i, at),
  });
}

async function publish(ctx, keys, from, count) {
  const key = keys.events(TEAM);
  for (let i = 0; i < count; i += 500) {
    const pipe = ctx.redis.client.pipeline();
    for (let j = i; j < Math.min(count, i + 500); j++)
      pipe.xadd(key, '*', EVENTS_STREAM_FIELD, streamEvent(from + j));
    await pipe.exec();
  }
}

async function startDispatcher(ctx) {
  const { child } = await startPetrelProcess(ctx, {
    name: 'petrel-webhooks',
    main: DISPATCHER_MAIN,
    what: 'Petrel webhook dispatcher',
    nodeArgs: profileArgs(ctx, 'dispatcher'),
    env: {
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_CONCURRENCY: String(CONCURRENCY),
      WEBHOOK_ENDPOINT_CONCURRENCY: String(CONCURRENCY),
    },
  });
  return child;
}

async function startBaseline(ctx, receiver, secret) {
  const child = spawnNode('baseline-webhooks', BASELINE_MAIN, {
    cwd: ROOT,
    nodeArgs: profileArgs(ctx, 'baseline-dispatcher'),
    env: {
      REDIS_URL: ctx.redis.url,
      QUEUE: BASE_QUEUE,
      PREFIX: BASE_PREFIX,
      CONCURRENCY: String(CONCURRENCY),
      RECEIVER_URL: receiver.url,
      SECRET: secret,
    },
  });
  await waitUntil(() => (child.assertAlive(), child.tail().includes('ready')), { what: 'baseline worker' });
  return child;
}

/**
 * Waits until `n` distinct deliveries arrived; returns the seconds from the first arrival to the
 * last (process start-up is not counted, on either side).
 */
async function delivered(ctx, receiver, n, child, what) {
  let shown = now();
  await waitUntil(
    () => {
      child.assertAlive();
      if (now() - shown > 2_000) {
        shown = now();
        ctx.progress(`  ${what}: ${fmtInt(receiver.arrivals.size)} of ${fmtInt(n)} delivered`);
      }
      return receiver.arrivals.size >= n;
    },
    { what: `${n} deliveries (${what})`, timeoutMs: 600_000, intervalMs: 10 },
  );
  const times = [...receiver.arrivals.values()].map((a) => a.at);
  return Math.max(1, Math.max(...times) - Math.min(...times)) / 1000;
}

/** Latencies (ms) of the arrivals, from each body's sent_ms, ascending. */
function latencies(receiver) {
  return [...receiver.arrivals.values()]
    .map((a) => a.at - JSON.parse(a.body).data.sent_ms)
    .sort((a, b) => a - b);
}

/**
 * The burst (the `n` events already queued: deliveries/s and CPU per delivery of `cpu`'s
 * process and Redis), then the steady load fed by `feed(from, count)` every 100 ms: latencies.
 */
async function measure(ctx, { label, cpu, child, receiver, n, steady }, feed) {
  await ctx.redis.resetStats();
  const a = await cpuSnapshot({ [cpu]: child.pid }, ctx.redis.client);
  const seconds = await delivered(ctx, receiver, n, child, label);
  const b = await cpuSnapshot({ [cpu]: child.pid }, ctx.redis.client);
  // Nothing XADDs during Petrel's burst but BullMQ's job events (the bench's events are written
  // before it): 0 when every first attempt went straight from the stream, a few per delivery
  // that went through a job (added, active, completed).
  const xadd = (await ctx.redis.commandStats(100)).find((c) => c.cmd === 'xadd')?.calls ?? 0;
  const burst = {
    deliveries: n,
    seconds: round(seconds, 2),
    per_s: Math.round(n / seconds),
    job_event_xadds: xadd,
    cpu_us_per_delivery: {
      [cpu]: round(((b.per[cpu] - a.per[cpu]) / n) * 1e6, 1),
      redis: round(((b.redis.self - a.redis.self) / n) * 1e6, 1),
    },
  };
  ctx.progress(
    `  ${label.padEnd(8)} ${fmtInt(n)} signed deliveries in ${burst.seconds} s = ${fmtInt(burst.per_s)}/s (first to last arrival; ${fmtInt(xadd)} BullMQ job-event XADDs)`,
  );
  receiver.arrivals.clear();
  const perTick = steady.rate / 10;
  for (let s = 0; s < steady.seconds * 10; s++) {
    const tick = Date.now();
    await feed(n + s * perTick, perTick);
    await sleep(Math.max(0, 100 - (Date.now() - tick)));
  }
  await delivered(ctx, receiver, steady.rate * steady.seconds, child, `${label} steady`);
  const lat = latencies(receiver);
  return {
    burst,
    steady: {
      rate: steady.rate,
      seconds: steady.seconds,
      p50_ms: percentile(lat, 50),
      p99_ms: percentile(lat, 99),
    },
  };
}

async function petrelRun(ctx, n, steady) {
  await ctx.redis.reset();
  const receiver = await startReceiver();
  const keys = new Keys(PETREL_PREFIX);
  const store = new WebhooksStore(ctx.redis.client, keys, 86_400_000);
  await store.create(
    TEAM,
    newWebhookEndpoint({
      id: newId(),
      endpoint: receiver.url,
      events: ['email.sent'],
      created_at: new Date().toISOString(),
      secret: newSigningSecret(),
    }),
  );
  await publish(ctx, keys, 0, n);
  const child = await startDispatcher(ctx);
  try {
    return await measure(
      ctx,
      { label: 'petrel', cpu: 'dispatcher', child, receiver, n, steady },
      (from, count) => publish(ctx, keys, from, count),
    );
  } finally {
    await child.stop(15_000);
    await receiver.stop();
  }
}

async function baselineRun(ctx, n, steady) {
  await ctx.redis.reset();
  const receiver = await startReceiver();
  const secret = newSigningSecret();
  const queue = new Queue(BASE_QUEUE, { connection: ctx.redis.client, prefix: BASE_PREFIX });
  const add = async (from, count) => {
    for (let i = 0; i < count; i += 500) {
      await queue.addBulk(
        Array.from({ length: Math.min(500, count - i) }, (_, j) => {
          const at = Date.now();
          const body = JSON.stringify({
            type: 'email.sent',
            created_at: new Date(at).toISOString(),
            data: eventBody(from + i + j, at),
          });
          return {
            name: 'deliver',
            data: { body },
            opts: { jobId: randomUUID(), removeOnComplete: true, attempts: 8 },
          };
        }),
      );
    }
  };
  await add(0, n);
  const child = await startBaseline(ctx, receiver, secret);
  try {
    return await measure(ctx, { label: 'baseline', cpu: 'worker', child, receiver, n, steady }, add);
  } finally {
    await child.stop(15_000);
    await queue.close();
    await receiver.stop();
  }
}

export async function run(ctx) {
  const n = ctx.opts.quick ? SIZES.quick : Math.max(SIZES.quick, ctx.opts.n ?? SIZES.full);
  const steady = ctx.opts.quick ? STEADY.quick : STEADY.full;
  const petrel = await petrelRun(ctx, n, steady);
  const baseline = ctx.opts.skipBaseline ? null : await baselineRun(ctx, n, steady);
  await ctx.redis.reset();
  const rat = baseline ? ratio(petrel.burst.per_s, baseline.burst.per_s) : null;
  ctx.progress(
    `  steady ${steady.rate}/s: event→delivery p50 ${petrel.steady.p50_ms} ms, p99 ${petrel.steady.p99_ms} ms` +
      (baseline
        ? ` (baseline job add→delivery p50 ${baseline.steady.p50_ms} ms, p99 ${baseline.steady.p99_ms} ms)`
        : ''),
  );
  return {
    petrel: petrel.burst.per_s,
    baseline: baseline?.burst.per_s ?? null,
    baseline_is:
      'bare BullMQ worker, jobs carrying the body, signed with standardwebhooks, POSTed with undici',
    ratio: rat,
    unit: 'deliveries/s',
    target: { ratio_min: RATIO_TARGET },
    met: rat !== null && rat >= RATIO_TARGET,
    concurrency: CONCURRENCY,
    petrel_run: petrel,
    baseline_run: baseline,
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  const p = r.petrel_run;
  const b = r.baseline_run;
  return [
    {
      phase: 'webhooks',
      metric: `signed deliveries/s, ${fmtInt(p.burst.deliveries)} events, concurrency ${r.concurrency} (dispatcher CPU ${p.burst.cpu_us_per_delivery.dispatcher} µs, redis ${p.burst.cpu_us_per_delivery.redis} µs per delivery)`,
      petrel: fmtInt(r.petrel),
      baseline: b
        ? `${fmtInt(r.baseline)} (bare BullMQ + standardwebhooks + undici; worker CPU ${b.burst.cpu_us_per_delivery.worker} µs, redis ${b.burst.cpu_us_per_delivery.redis} µs)`
        : 'skipped',
      ratio: r.ratio,
      target: `≥ ${RATIO_TARGET.toFixed(2)}×`,
      met: r.met,
    },
    {
      phase: 'webhooks',
      metric: `event→delivery latency at a steady ${p.steady.rate}/s for ${p.steady.seconds} s (p50 / p99)`,
      petrel: `${p.steady.p50_ms} / ${p.steady.p99_ms} ms`,
      baseline: b ? `${b.steady.p50_ms} / ${b.steady.p99_ms} ms (job add→delivery)` : 'skipped',
      ratio: null,
      target: 'reported',
      met: null,
    },
  ];
}
