// Phase — webhook deliveries. N events (email.sent-shaped, ~600 bytes of data) are on one team's
// events stream when the Petrel dispatcher (apps/webhooks/dist/main.js) starts; it reads them,
// writes their event-log entries and POSTs each, signed, to a local HTTP receiver (in the bench
// process, answering 200 at once) straight from the batch, records it and acknowledges it.
// Baseline, same Redis, same receiver and concurrency: a bare BullMQ worker
// (bench/lib/webhook-baseline.mjs) whose jobs carry the body, signing with `standardwebhooks` and
// POSTing with undici — no stream, no log, no endpoint lookup. Target: ≥ 1.0× the baseline.
//
// One burst of 20,000 takes ~3 s on a quiet machine, so a single burst per side moved the ratio by
// ±15 % run to run. A run is now ROUNDS interleaved rounds (Petrel, baseline; then baseline,
// Petrel; …: a drift of the machine's load falls on both sides), each a fresh process given
// WARMUP + N events: the first WARMUP deliveries warm it up (JIT, connections, pools) and are not
// counted; the rate is the N after them (first to last arrival) and the CPU per delivery is the
// processes' and Redis's over the same deliveries. Reported: the median round of each side and
// the ratio of the medians.
// Then a steady load on the last round's process: events at a fixed rate for a while; the latency
// of each from its XADD (the event's created_at) to its arrival at the receiver, p50/p99, and the
// same for the baseline from its job's add.
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { EVENTS_STREAM_FIELD, Keys, WebhooksStore } from '@petrel/store';
import { newId, newSigningSecret, newWebhookEndpoint } from '@petrel/core';
import { cpuSnapshot } from '../lib/cpu.mjs';
import { spawnNode } from '../lib/proc.mjs';
import { PETREL_PREFIX, ROOT, profileArgs, startPetrelProcess } from '../lib/stacks.mjs';
import {
  fmtInt,
  median,
  now,
  percentile,
  ratio,
  round,
  sleep,
  startHttpReceiver,
  waitUntil,
} from '../lib/util.mjs';

export const name = 'webhooks';
export const order = 95;
export const title =
  'Webhook deliveries: signed deliveries/s vs a bare BullMQ + standardwebhooks + undici worker; event→delivery p99';

const SIZES = { full: 20_000, quick: 1_000 };
/** Rounds per side (interleaved), and the deliveries of each round not counted (warm-up). */
const ROUNDS = { full: 3, quick: 1 };
const WARMUP = { full: 2_000, quick: 200 };
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

/** Waits until `n` distinct deliveries arrived (showing progress every 2 s). */
async function arrived(ctx, receiver, n, child, what) {
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
}

/** Latencies (ms) of the arrivals, from each body's sent_ms, ascending. */
function latencies(receiver) {
  return [...receiver.arrivals.values()]
    .map((a) => a.at - JSON.parse(a.body).data.sent_ms)
    .sort((a, b) => a - b);
}

/**
 * One round's burst: `warmup + n` events are queued when `child` starts. The first `warmup`
 * arrivals are not counted; from there to the last: deliveries/s (arrival times) and the CPU per
 * delivery of `cpu`'s process and of Redis (snapshots when `warmup` and when all had arrived,
 * divided by the arrivals between the two).
 */
async function burst(ctx, { label, cpu, child, receiver, n, warmup }) {
  await arrived(ctx, receiver, warmup, child, `${label} warm-up`);
  await ctx.redis.resetStats();
  const a = await cpuSnapshot({ [cpu]: child.pid }, ctx.redis.client);
  const fromCount = receiver.arrivals.size;
  await arrived(ctx, receiver, warmup + n, child, label);
  const b = await cpuSnapshot({ [cpu]: child.pid }, ctx.redis.client);
  const counted = Math.max(1, receiver.arrivals.size - fromCount);
  const times = [...receiver.arrivals.values()].map((x) => x.at).sort((x, y) => x - y);
  const seconds = Math.max(1, times[times.length - 1] - times[warmup - 1]) / 1000;
  // Nothing XADDs during Petrel's burst but BullMQ's job events (the bench's events are written
  // before it): 0 when every first attempt went straight from the stream, a few per delivery
  // that went through a job (added, active, completed).
  const stats = await ctx.redis.commandStats(100);
  const calls = (cmd) => stats.find((c) => c.cmd === cmd)?.calls ?? 0;
  const result = {
    deliveries: n,
    seconds: round(seconds, 2),
    per_s: Math.round(n / seconds),
    job_event_xadds: calls('xadd'),
    // Redis round trips of the burst, per 1,000 deliveries (scripts, stream acks)
    calls_per_1000: {
      scripts: round(((calls('evalsha') + calls('eval')) / counted) * 1000, 1),
      xack: round((calls('xack') / counted) * 1000, 1),
    },
    cpu_us_per_delivery: {
      [cpu]: round(((b.per[cpu] - a.per[cpu]) / counted) * 1e6, 1),
      redis: round(((b.redis.self - a.redis.self) / counted) * 1e6, 1),
    },
  };
  ctx.progress(
    `  ${label.padEnd(8)} ${fmtInt(n)} signed deliveries in ${result.seconds} s = ${fmtInt(result.per_s)}/s after ${fmtInt(warmup)} not counted; ${cpu} ${result.cpu_us_per_delivery[cpu]} µs + redis ${result.cpu_us_per_delivery.redis} µs per delivery (${fmtInt(result.job_event_xadds)} BullMQ job-event XADDs)`,
  );
  return result;
}

/** The steady load fed by `feed(from, count)` every 100 ms, on a process done with its burst. */
async function steadyLoad(ctx, { label, child, receiver, from, steady }, feed) {
  receiver.arrivals.clear();
  const perTick = steady.rate / 10;
  for (let s = 0; s < steady.seconds * 10; s++) {
    const tick = Date.now();
    await feed(from + s * perTick, perTick);
    await sleep(Math.max(0, 100 - (Date.now() - tick)));
  }
  await arrived(ctx, receiver, steady.rate * steady.seconds, child, `${label} steady`);
  const lat = latencies(receiver);
  return {
    rate: steady.rate,
    seconds: steady.seconds,
    p50_ms: percentile(lat, 50),
    p99_ms: percentile(lat, 99),
  };
}

/** One Petrel round: a fresh dispatcher, its burst, then (`steady` given) the steady load. */
async function petrelRound(ctx, n, warmup, steady) {
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
  await publish(ctx, keys, 0, warmup + n);
  const child = await startDispatcher(ctx);
  try {
    const label = 'petrel';
    const b = await burst(ctx, { label, cpu: 'dispatcher', child, receiver, n, warmup });
    if (!steady) return { burst: b };
    const feed = (from, count) => publish(ctx, keys, from, count);
    return {
      burst: b,
      steady: await steadyLoad(ctx, { label, child, receiver, from: warmup + n, steady }, feed),
    };
  } finally {
    await child.stop(15_000);
    await receiver.stop();
  }
}

/** One baseline round, as `petrelRound`. */
async function baselineRound(ctx, n, warmup, steady) {
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
  await add(0, warmup + n);
  const child = await startBaseline(ctx, receiver, secret);
  try {
    const label = 'baseline';
    const b = await burst(ctx, { label, cpu: 'worker', child, receiver, n, warmup });
    if (!steady) return { burst: b };
    return {
      burst: b,
      steady: await steadyLoad(ctx, { label, child, receiver, from: warmup + n, steady }, add),
    };
  } finally {
    await child.stop(15_000);
    await queue.close();
    await receiver.stop();
  }
}

/** The median round's figures of one side, with every round's rate and CPU kept. */
function summary(rounds, cpu) {
  const bursts = rounds.map((r) => r.burst);
  const mid = (f) => median(bursts.map(f));
  return {
    burst: {
      deliveries: bursts[0].deliveries,
      rounds: bursts.length,
      per_s: mid((b) => b.per_s),
      seconds: mid((b) => b.seconds),
      job_event_xadds: mid((b) => b.job_event_xadds),
      calls_per_1000: {
        scripts: mid((b) => b.calls_per_1000.scripts),
        xack: mid((b) => b.calls_per_1000.xack),
      },
      cpu_us_per_delivery: {
        [cpu]: mid((b) => b.cpu_us_per_delivery[cpu]),
        redis: mid((b) => b.cpu_us_per_delivery.redis),
      },
      per_round: bursts.map((b) => ({ per_s: b.per_s, cpu_us: b.cpu_us_per_delivery })),
    },
    steady: rounds[rounds.length - 1].steady,
  };
}

export async function run(ctx) {
  const size = ctx.opts.quick ? 'quick' : 'full';
  const n = ctx.opts.quick ? SIZES.quick : Math.max(SIZES.quick, ctx.opts.n ?? SIZES.full);
  const steady = STEADY[size];
  const rounds = ROUNDS[size];
  const warmup = WARMUP[size];
  const petrelRounds = [];
  const baselineRounds = [];
  for (let r = 0; r < rounds; r++) {
    const last = r === rounds - 1 ? steady : null;
    ctx.progress(`  round ${r + 1} of ${rounds}`);
    const petrel = () => petrelRound(ctx, n, warmup, last).then((x) => petrelRounds.push(x));
    const baseline = () =>
      ctx.opts.skipBaseline ? null : baselineRound(ctx, n, warmup, last).then((x) => baselineRounds.push(x));
    // the side that goes first alternates, so a change of the machine's load falls on both
    if (r % 2 === 0) {
      await petrel();
      await baseline();
    } else {
      await baseline();
      await petrel();
    }
  }
  await ctx.redis.reset();
  const petrel = summary(petrelRounds, 'dispatcher');
  const baseline = baselineRounds.length ? summary(baselineRounds, 'worker') : null;
  const rat = baseline ? ratio(petrel.burst.per_s, baseline.burst.per_s) : null;
  const roundRatios = baselineRounds.map((b, i) => ratio(petrelRounds[i].burst.per_s, b.burst.per_s));
  ctx.progress(
    `  median of ${rounds}: petrel ${fmtInt(petrel.burst.per_s)}/s, baseline ${baseline ? fmtInt(baseline.burst.per_s) : '–'}/s (round ratios ${roundRatios.join(', ')})`,
  );
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
    round_ratios: roundRatios,
    unit: 'deliveries/s',
    target: { ratio_min: RATIO_TARGET },
    met: rat !== null && rat >= RATIO_TARGET,
    concurrency: CONCURRENCY,
    warmup,
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
      metric: `signed deliveries/s, median of ${p.burst.rounds} interleaved rounds of ${fmtInt(p.burst.deliveries)} events after ${fmtInt(r.warmup)} not counted, concurrency ${r.concurrency} (dispatcher CPU ${p.burst.cpu_us_per_delivery.dispatcher} µs, redis ${p.burst.cpu_us_per_delivery.redis} µs per delivery)`,
      petrel: fmtInt(r.petrel),
      baseline: b
        ? `${fmtInt(r.baseline)} (bare BullMQ + standardwebhooks + undici; worker CPU ${b.burst.cpu_us_per_delivery.worker} µs, redis ${b.burst.cpu_us_per_delivery.redis} µs)`
        : 'skipped',
      ratio: r.ratio,
      target: `≥ ${RATIO_TARGET.toFixed(2)}× (round ratios ${r.round_ratios.join(', ')})`,
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
