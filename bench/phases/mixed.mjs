// Phase 5 — mixed load: the API and the workers run at the same time on the same 2 cores.
//  steady:    a fixed offered load both sides can sustain (default 60 % of the raw stack's
//             delivery rate from phase 2), batches of 10 → acceptance-to-250 p50/p99 and API p99.
//  saturated: ingest as fast as autocannon can (100-email batches) while the workers drain →
//             how ingest and delivery share the machine (accepted/s vs delivered/s).
import { cpuDelta, cpuSnapshot } from '../lib/cpu.mjs';
import { cannon } from '../lib/load.mjs';
import { batch } from '../lib/payload.mjs';
import {
  startBaselineApi,
  startBaselineWorkers,
  startPetrelApi,
  startPetrelWorkers,
} from '../lib/stacks.mjs';
import { fmtInt, ratio, round, sleep } from '../lib/util.mjs';

export const name = 'mixed';
export const order = 50;
export const title = 'Mixed load: ingest and delivery at the same time';

async function oneSystem(ctx, system, o) {
  await ctx.redis.reset();
  await ctx.sink.reset();
  const api = system === 'petrel' ? await startPetrelApi(ctx) : await startBaselineApi(ctx);
  const stack =
    system === 'petrel'
      ? await startPetrelWorkers(ctx, o.workers[system])
      : await startBaselineWorkers(ctx, o.workers[system]);
  try {
    await stack.ready();
    const procs = { api: api.child.pid, sink: ctx.sink.pid };
    stack.workers.forEach((w) => (procs[w.name] = w.child.pid));
    const sumWorkers = (cpu) => {
      cpu.workers = stack.workers.reduce((a, w) => a + (cpu[w.name] ?? 0), 0);
      return cpu;
    };

    // warm-up at the steady rate
    const steadyLoad = {
      bodies: o.small,
      perRequest: 10,
      connections: 4,
      overallRate: o.rate / 10,
      idempotentHalf: true,
    };
    const warm = await cannon(api, { ...steadyLoad, durationS: o.warmupS });

    // steady
    const a = await cpuSnapshot(procs, ctx.redis.client);
    const t0 = Date.now();
    const steady = await cannon(api, { ...steadyLoad, durationS: o.durationS });
    const t1 = Date.now();
    const b = await cpuSnapshot(procs, ctx.redis.client);
    // let the tail of the steady load arrive, then read every message accepted in the window
    const expected = (warm.ok + steady.ok) * 10;
    await ctx.sink
      .waitFor(expected, { stallMs: 15_000, watch: [api.child, ...stack.children] })
      .catch(() => undefined);
    const inWindow = await ctx.sink.summary({ from: t0 + 200, to: t1 + 30_000 });
    const deliveredInWindow = await ctx.sink.summary({ from: t0, to: t1 });
    const steadyResult = {
      offered_emails_per_s: o.rate,
      accepted_emails_per_s: steady.emails_per_s,
      delivered_emails_per_s: round((deliveredInWindow.count / (t1 - t0)) * 1000, 0),
      accept_to_250_ms: inWindow.latency_ms,
      api_p50_ms: steady.p50_ms,
      api_p99_ms: steady.p99_ms,
      non2xx: steady.non2xx,
      cpu: sumWorkers(cpuDelta(a, b)),
    };
    ctx.progress(
      `  ${system.padEnd(8)} steady ${fmtInt(o.rate)}/s offered: delivered ${fmtInt(steadyResult.delivered_emails_per_s)}/s, ` +
        `accept→250 p50 ${fmtInt(inWindow.latency_ms.p50)} / p99 ${fmtInt(inWindow.latency_ms.p99)} ms, API p99 ${steady.p99_ms} ms`,
    );

    // saturated
    await sleep(200);
    const c = await cpuSnapshot(procs, ctx.redis.client);
    const u0 = Date.now();
    const sat = await cannon(api, {
      bodies: o.large,
      perRequest: 100,
      durationS: o.durationS,
      connections: 10,
      idempotentHalf: true,
    });
    const u1 = Date.now();
    const d = await cpuSnapshot(procs, ctx.redis.client);
    const satSink = await ctx.sink.summary({ from: u0, to: u1 });
    const saturated = {
      accepted_emails_per_s: sat.emails_per_s,
      delivered_emails_per_s: round((satSink.count / (u1 - u0)) * 1000, 0),
      api_p50_ms: sat.p50_ms,
      api_p99_ms: sat.p99_ms,
      accept_to_250_ms: satSink.latency_ms,
      backlog_at_end: sat.ok * 100 - satSink.count,
      non2xx: sat.non2xx,
      cpu: sumWorkers(cpuDelta(c, d)),
    };
    ctx.progress(
      `  ${system.padEnd(8)} saturated: accepted ${fmtInt(saturated.accepted_emails_per_s)}/s while delivering ${fmtInt(saturated.delivered_emails_per_s)}/s, ` +
        `API p99 ${sat.p99_ms} ms`,
    );
    return { workers: o.workers[system], steady: steadyResult, saturated };
  } finally {
    await stack.stop();
    await api.stop();
  }
}

export async function run(ctx) {
  const d = ctx.results.delivery;
  const defaultRate =
    d?.baseline && d?.petrel ? Math.round((0.6 * Math.min(d.baseline, d.petrel)) / 100) * 100 : 1000;
  const rate = ctx.opts.mixedRate ?? (ctx.opts.quick ? 500 : defaultRate);
  const o = {
    rate,
    durationS: ctx.opts.mixedSeconds,
    warmupS: ctx.opts.quick ? 0.5 : 1,
    workers: {
      petrel: d?.best_split?.petrel ?? 2,
      baseline: d?.best_split?.baseline ?? 2,
    },
    small: Array.from({ length: 64 }, (_, k) => JSON.stringify(batch(k * 10, 10, 'standard', 'm'))),
    large: Array.from({ length: 16 }, (_, k) => JSON.stringify(batch(k * 100, 100, 'standard', 'M'))),
  };
  if (ctx.opts.quick) o.workers = { petrel: 1, baseline: 1 };
  const out = {};
  for (const system of ['baseline', 'petrel']) {
    if (system === 'baseline' && ctx.opts.skipBaseline) continue;
    out[system] = await oneSystem(ctx, system, o);
  }
  const p = out.petrel;
  const b = out.baseline;
  return {
    petrel: p.steady.accept_to_250_ms.p99,
    baseline: b?.steady.accept_to_250_ms.p99 ?? null,
    ratio: ratio(p.steady.accept_to_250_ms.p99, b?.steady.accept_to_250_ms.p99),
    unit: `ms accept→250 p99 at ${fmtInt(rate)} emails/s offered (lower is better)`,
    p50_ms: p.steady.accept_to_250_ms.p50,
    p99_ms: p.steady.accept_to_250_ms.p99,
    api_p99_ms: p.steady.api_p99_ms,
    saturated: {
      petrel: {
        accepted: p.saturated.accepted_emails_per_s,
        delivered: p.saturated.delivered_emails_per_s,
        api_p99_ms: p.saturated.api_p99_ms,
      },
      baseline: b
        ? {
            accepted: b.saturated.accepted_emails_per_s,
            delivered: b.saturated.delivered_emails_per_s,
            api_p99_ms: b.saturated.api_p99_ms,
          }
        : null,
      delivered_ratio: ratio(p.saturated.delivered_emails_per_s, b?.saturated.delivered_emails_per_s),
    },
    setup: { offered_emails_per_s: rate, steady_batch: 10, duration_s: o.durationS, workers: o.workers },
    cpu: { petrel: p.steady.cpu, baseline: b?.steady.cpu ?? null },
    runs: out,
  };
}

export function rows(r) {
  const p = r.runs.petrel;
  const b = r.runs.baseline;
  return [
    {
      phase: 'mixed',
      metric: `steady ${fmtInt(r.setup.offered_emails_per_s)}/s offered: accept→250 p50 / p99 ms (API p99)`,
      petrel: `${fmtInt(p.steady.accept_to_250_ms.p50)} / ${fmtInt(p.steady.accept_to_250_ms.p99)} (${p.steady.api_p99_ms})`,
      baseline: b
        ? `${fmtInt(b.steady.accept_to_250_ms.p50)} / ${fmtInt(b.steady.accept_to_250_ms.p99)} (${b.steady.api_p99_ms})`
        : '–',
      ratio: r.ratio,
      target: 'p99 ratio, lower is better',
      met: null,
      cpu_petrel: p.steady.cpu,
      cpu_baseline: b?.steady.cpu,
    },
    {
      phase: 'mixed',
      metric: 'saturated: accepted / delivered emails/s (API p99 ms)',
      petrel: `${fmtInt(p.saturated.accepted_emails_per_s)} / ${fmtInt(p.saturated.delivered_emails_per_s)} (${p.saturated.api_p99_ms})`,
      baseline: b
        ? `${fmtInt(b.saturated.accepted_emails_per_s)} / ${fmtInt(b.saturated.delivered_emails_per_s)} (${b.saturated.api_p99_ms})`
        : '–',
      ratio: r.saturated.delivered_ratio,
      target: 'delivered ratio',
      met: null,
      cpu_petrel: p.saturated.cpu,
      cpu_baseline: b?.saturated.cpu,
    },
  ];
}
