// Phase — send lanes: a broadcast must not delay a password reset. The same steady transactional
// load (batches of 10 through POST /emails/batch at a fixed rate) is measured twice on the same
// stack (API, worker processes, scheduler): alone, and while a broadcast to a 100,000-contact
// segment fans out and drains on the broadcast lane. Reported: the transactional emails'
// acceptance-to-250 p50/p99 (the sink keeps them apart from the broadcast's by the Message-ID
// domain), the broadcast messages delivered meanwhile, CPU. Target: p99 with the broadcast
// ≤ 2× the p99 alone. A third run drains the same broadcast with no transactional load over the
// same window: the broadcast's rate under load divided by that one says what the isolation
// (the fan-out's adaptive pacing) costs the broadcast. Each lane has its own queues and its own WORKER_CONCURRENCY, so the
// broadcast's backlog never sits in front of a transactional job; what remains is the CPU the
// two share.
import { cpuDelta, cpuSnapshot } from '../lib/cpu.mjs';
import { cannon } from '../lib/load.mjs';
import { batch, FROM } from '../lib/payload.mjs';
import { startPetrelApi, startPetrelWorkers } from '../lib/stacks.mjs';
import { fmtInt, ratio, round, sleep, waitUntil } from '../lib/util.mjs';
import { BROADCAST_FROM, segmentOf, sendBroadcast, startPetrelScheduler } from './fanout.mjs';

export const name = 'lanes';
export const order = 85;
export const title = 'Send lanes: transactional accept→250 p99 while a 100k broadcast drains vs alone';

const TARGET = 2;
const CONTACTS = { full: 100_000, quick: 3_000 };
const domainOf = (from) => /@([^>]+)>?$/.exec(from)[1];
/** How often the broadcast lane's concurrency is read from the workers' /metrics in a window. */
const LANE_SAMPLE_MS = 500;

/**
 * Samples `petrel_broadcast_lane_concurrency` (summed over the worker processes) until stopped:
 * shows whether the broadcast lane yielded (WORKER_BROADCAST_YIELD) during the window.
 */
function sampleLaneConcurrency(workers) {
  const samples = [];
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const texts = await workers.metrics().catch(() => []);
      const values = texts.map((t) =>
        Number(/^petrel_broadcast_lane_concurrency(?:\{[^}]*\})? (\S+)$/m.exec(t)?.[1]),
      );
      if (values.length > 0 && values.every(Number.isFinite)) samples.push(values.reduce((a, b) => a + b, 0));
      await sleep(LANE_SAMPLE_MS);
    }
  })();
  return async () => {
    stopped = true;
    await loop;
    if (samples.length === 0) return null;
    const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
    return {
      mean: round(mean, 1),
      min: Math.min(...samples),
      max: Math.max(...samples),
      samples: samples.length,
    };
  };
}
const TRANSACTIONAL = domainOf(FROM);
const BROADCAST = domainOf(BROADCAST_FROM);

/**
 * One measurement: the steady load, with or without a broadcast draining at the same time; with
 * `transactional: false` the broadcast alone over the same window (no load sent).
 */
async function measure(ctx, o, withBroadcast, transactional = true) {
  await ctx.redis.reset();
  await ctx.sink.reset();
  const api = await startPetrelApi(ctx);
  const scheduler = await startPetrelScheduler(ctx);
  const workers = await startPetrelWorkers(ctx, o.workers);
  try {
    await workers.ready();
    let broadcastId;
    if (withBroadcast) {
      const { resend, segmentId } = await segmentOf(ctx, api, o.contacts);
      broadcastId = await sendBroadcast(resend, segmentId);
      // the broadcast is draining before the measurement starts
      await waitUntil(
        async () => (await ctx.sink.summary({ domain: BROADCAST })).count >= Math.min(1_000, o.contacts / 10),
        { timeoutMs: 120_000, what: 'the broadcast to start delivering' },
      );
    }
    const load = { bodies: o.bodies, perRequest: 10, connections: 4, overallRate: o.rate / 10 };
    // the broadcast-only run waits the same warm-up and window instead of sending
    const offer = (durationS) =>
      transactional
        ? cannon(api, { ...load, durationS })
        : sleep(durationS * 1000).then(() => ({ ok: 0, non2xx: 0, emails_per_s: 0 }));
    await offer(o.warmupS);
    const procs = { api: api.child.pid, scheduler: scheduler.child.pid, sink: ctx.sink.pid };
    workers.workers.forEach((w) => (procs[w.name] = w.child.pid));
    const a = await cpuSnapshot(procs, ctx.redis.client);
    const t0 = Date.now();
    const stopSampling = sampleLaneConcurrency(workers);
    const steady = await offer(o.durationS);
    const t1 = Date.now();
    const b = await cpuSnapshot(procs, ctx.redis.client);
    const laneConcurrency = await stopSampling();
    const expected = steady.ok * 10;
    // the tail of the window's transactional emails (the broadcast may still be draining)
    await waitUntil(
      async () => (await ctx.sink.summary({ from: t0, domain: TRANSACTIONAL })).count >= expected,
      { timeoutMs: 60_000, what: 'the transactional emails of the window' },
    ).catch(() => undefined);
    const tx = transactional
      ? await ctx.sink.summary({ from: t0 + 200, to: t1 + 30_000, domain: TRANSACTIONAL })
      : { count: 0, latency_ms: { p50: null, p99: null } };
    const bc = await ctx.sink.summary({ from: t0, to: t1, domain: BROADCAST });
    const cpu = cpuDelta(a, b);
    cpu.workers = workers.workers.reduce((s, w) => s + (cpu[w.name] ?? 0), 0);
    const result = {
      with_broadcast: withBroadcast,
      with_transactional: transactional,
      offered_emails_per_s: o.rate,
      accepted_emails_per_s: steady.emails_per_s,
      non2xx: steady.non2xx,
      accept_to_250_ms: tx.latency_ms,
      transactional_delivered: tx.count,
      broadcast_delivered_in_window: bc.count,
      broadcast_per_s: round((bc.count / (t1 - t0)) * 1000, 0),
      // the broadcast lane's jobs at once over all worker processes (mean / min / max of samples)
      broadcast_lane_concurrency: laneConcurrency,
      cpu,
      ...(broadcastId && { broadcast_id: broadcastId }),
    };
    const lane = laneConcurrency
      ? `; broadcast lane concurrency mean ${laneConcurrency.mean} (min ${laneConcurrency.min})`
      : '';
    if (!transactional) {
      ctx.progress(
        `  broadcast, no transactional: ${fmtInt(result.broadcast_per_s)} messages/s${lane}` +
          `; cpu: workers ${cpu.workers}%, redis ${cpu.redis}%, scheduler ${cpu.scheduler}%`,
      );
      return result;
    }
    ctx.progress(
      `  ${withBroadcast ? 'with a broadcast draining' : 'alone                    '}: transactional accept→250 ` +
        `p50 ${fmtInt(tx.latency_ms.p50)} / p99 ${fmtInt(tx.latency_ms.p99)} ms (${fmtInt(tx.count)} emails)` +
        (withBroadcast ? `; broadcast ${fmtInt(result.broadcast_per_s)} messages/s meanwhile${lane}` : '') +
        `; cpu: workers ${cpu.workers}%, redis ${cpu.redis}%, scheduler ${cpu.scheduler}%`,
    );
    return result;
  } finally {
    await workers.stop();
    await scheduler.stop();
    await api.stop();
  }
}

export async function run(ctx) {
  const quick = ctx.opts.quick;
  const o = {
    workers: ctx.results.delivery?.best_split?.petrel ?? (quick ? 1 : 2),
    contacts: quick ? CONTACTS.quick : CONTACTS.full,
    rate: quick ? 100 : 200,
    warmupS: quick ? 1 : 2,
    durationS: quick ? 2 : ctx.opts.mixedSeconds,
    bodies: Array.from({ length: 64 }, (_, k) => JSON.stringify(batch(k * 10, 10, 'standard', 'l'))),
  };
  let alone;
  let busy;
  let broadcastOnly;
  try {
    alone = await measure(ctx, o, false);
    busy = await measure(ctx, o, true);
    broadcastOnly = await measure(ctx, o, true, false);
  } finally {
    await ctx.redis.reset();
    await ctx.sink.reset();
  }
  const rat = ratio(busy.accept_to_250_ms.p99, alone.accept_to_250_ms.p99);
  // what isolation costs the broadcast: its rate beside the transactional load over its rate alone
  const drain = ratio(busy.broadcast_per_s, broadcastOnly.broadcast_per_s);
  ctx.progress(`  broadcast drain rate with / without transactional load: ${drain}×`);
  return {
    petrel: busy.accept_to_250_ms.p99,
    baseline: alone.accept_to_250_ms.p99,
    baseline_is: 'the same transactional load with no broadcast',
    ratio: rat,
    unit: 'ms (p99)',
    target: { ratio_max: TARGET },
    broadcast_drain_ratio: drain,
    met: rat !== null && rat <= TARGET && busy.broadcast_delivered_in_window > 0,
    // the lever under test: the broadcast lane yielding to transactional jobs (off by default)
    setup: {
      ...o,
      bodies: undefined,
      broadcast_yield: process.env.WORKER_BROADCAST_YIELD ?? 'false (default)',
    },
    cpu: { petrel: busy.cpu, baseline: alone.cpu },
    runs: { alone, busy, broadcastOnly },
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  const { alone, busy, broadcastOnly } = r.runs;
  return [
    {
      phase: 'lanes',
      metric: `transactional accept→250 p50 / p99 ms at ${fmtInt(r.setup.rate)}/s, while a ${fmtInt(r.setup.contacts)}-contact broadcast drains (${fmtInt(busy.broadcast_per_s)} msg/s) vs alone @${r.setup.workers}w`,
      petrel: `${fmtInt(busy.accept_to_250_ms.p50)} / ${fmtInt(busy.accept_to_250_ms.p99)}`,
      baseline: `${fmtInt(alone.accept_to_250_ms.p50)} / ${fmtInt(alone.accept_to_250_ms.p99)} (alone)`,
      ratio: r.ratio,
      target: `p99 ≤ ${TARGET}×`,
      met: r.met,
      cpu_petrel: busy.cpu,
      cpu_baseline: alone.cpu,
    },
    {
      phase: 'lanes',
      metric: `broadcast msg/s while the transactional load runs vs the same broadcast alone (the cost of isolation)`,
      petrel: fmtInt(busy.broadcast_per_s),
      baseline: `${fmtInt(broadcastOnly.broadcast_per_s)} (no transactional load)`,
      ratio: r.broadcast_drain_ratio,
      target: 'reported',
      cpu_petrel: busy.cpu,
      cpu_baseline: broadcastOnly.cpu,
    },
  ];
}
