// Phase 1 — ingest. autocannon posts 100-email batches to POST /emails/batch for a fixed time.
// Petrel: the real API (auth, validation, Idempotency-Key on every other request, records, jobs,
// one atomic commit). Baseline: Express + express.json + zod + BullMQ addBulk on the same Redis.
// Alternating runs (baseline, Petrel, baseline, …); the median run of each side is reported.
import { cpuDelta, cpuSnapshot } from '../lib/cpu.mjs';
import { cannon } from '../lib/load.mjs';
import { batch } from '../lib/payload.mjs';
import { startBaselineApi, startPetrelApi } from '../lib/stacks.mjs';
import { fmtInt, medianRun, ratio, round } from '../lib/util.mjs';

export const name = 'ingest';
export const order = 10;
export const title = 'Ingest: POST /emails/batch, 100 emails per request';

const PER_REQUEST = 100;
const BODIES = 16;

/** One ingest measurement of `system` on `ctx.redis` (the cluster phase runs it on its clusters too). */
export async function once(ctx, system, bodies, o) {
  await ctx.redis.reset();
  const api = system === 'petrel' ? await startPetrelApi(ctx) : await startBaselineApi(ctx);
  try {
    // warm-up: JIT, connection pools, Redis script loading
    await cannon(api, {
      bodies,
      perRequest: PER_REQUEST,
      durationS: o.warmupS,
      connections: o.connections,
      idempotentHalf: true,
    });
    await ctx.redis.resetStats(); // commandstats and aof_rewrites count from here
    const mem0 = await ctx.redis.memory();
    const procs = { api: api.child.pid }; // the load generator is the bench process ("bench")
    const a = await cpuSnapshot(procs, ctx.redis.client);
    const r = await cannon(api, {
      bodies,
      perRequest: PER_REQUEST,
      durationS: o.durationS,
      connections: o.connections,
      idempotentHalf: true,
    });
    const b = await cpuSnapshot(procs, ctx.redis.client);
    api.child.assertAlive();
    const mem1 = await ctx.redis.memory();
    if (r.ok === 0)
      throw new Error(`${system}: no request succeeded (${r.first_error ?? `${r.errors} errors`})`);
    const cpu = cpuDelta(a, b);
    if (r.emails_per_s) {
      // µs of CPU per accepted email: robust to other load on the machine
      cpu.api_us_per_email = round((cpu.api * 10_000) / r.emails_per_s, 1);
      cpu.redis_us_per_email = round((cpu.redis * 10_000) / r.emails_per_s, 1);
    }
    return {
      ...r,
      cpu,
      redis_commands: await ctx.redis.commandStats(8, r.ok * PER_REQUEST),
      redis_bytes_per_email: r.ok ? round((mem1 - mem0) / (r.ok * PER_REQUEST), 0) : null,
      aof_rewrites: await ctx.redis.rewrites(),
    };
  } finally {
    await api.stop();
  }
}

/** The request bodies autocannon rotates: 100-email batches of ~1.2 KB emails. */
export function ingestBodies() {
  return Array.from({ length: BODIES }, (_, k) =>
    JSON.stringify(batch(k * PER_REQUEST, PER_REQUEST, 'small', 'i')),
  );
}

export async function run(ctx) {
  const o = {
    durationS: ctx.opts.ingestSeconds,
    warmupS: ctx.opts.quick ? 0.5 : 1,
    connections: 10,
    reps: ctx.opts.reps,
  };
  const bodies = ingestBodies();
  const runs = { petrel: [], baseline: [] };
  for (let rep = 0; rep < o.reps; rep++) {
    for (const system of ['baseline', 'petrel']) {
      const r = await once(ctx, system, bodies, o);
      runs[system].push(r);
      ctx.progress(
        `  ${system.padEnd(8)} run ${rep + 1}/${o.reps}: ${fmtInt(r.emails_per_s)} emails/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms` +
          `${r.non2xx ? `, ${r.non2xx} non-2xx (${r.first_error})` : ''}`,
      );
    }
  }
  const p = medianRun(runs.petrel);
  const b = medianRun(runs.baseline);
  const rat = ratio(p.emails_per_s, b.emails_per_s);
  return {
    petrel: p.emails_per_s,
    baseline: b.emails_per_s,
    ratio: rat,
    unit: 'emails/s',
    p50_ms: p.p50_ms,
    p99_ms: p.p99_ms,
    baseline_p50_ms: b.p50_ms,
    baseline_p99_ms: b.p99_ms,
    target: { ratio_min: 0.9, p99_ms_max: 100 },
    met: rat !== null && rat >= 0.9 && p.p99_ms <= 100,
    setup: {
      duration_s: o.durationS,
      connections: o.connections,
      emails_per_request: PER_REQUEST,
      request_bytes: Buffer.byteLength(bodies[0]),
      idempotency_keys: 'every other request',
      reps: o.reps,
    },
    cpu: { petrel: p.cpu, baseline: b.cpu },
    runs,
  };
}

export function rows(r) {
  return [
    {
      phase: 'ingest',
      metric: 'accepted emails/s (p50 / p99 ms)',
      petrel: `${fmtInt(r.petrel)} (${r.p50_ms} / ${r.p99_ms})`,
      baseline: `${fmtInt(r.baseline)} (${r.baseline_p50_ms} / ${r.baseline_p99_ms})`,
      ratio: r.ratio,
      target: '≥ 0.90×, p99 ≤ 100 ms',
      met: r.met,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.baseline,
    },
  ];
}
