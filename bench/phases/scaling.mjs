// Phase 4 — scaling. Delivery with 1, 2 and 4 worker processes, Petrel and baseline, with the
// CPU of every process: where the workers, Redis or the machine saturate. Splits the delivery
// phase already measured (same N) are reused rather than run again.
import { best, drainBoth } from './delivery.mjs';
import { fmtInt, ratio } from '../lib/util.mjs';

export const name = 'scaling';
export const order = 40;
export const title = 'Scaling: delivery with 1, 2 and 4 worker processes';

export async function run(ctx) {
  const n = ctx.opts.n;
  const splits = ctx.opts.quick ? [1, 2] : [1, 2, 4];
  const prior = ctx.results.delivery?.runs ?? {};
  const runs = {};
  for (const w of splits) {
    const reuse = prior[w]?.petrel?.n === n && (prior[w]?.baseline || ctx.opts.skipBaseline);
    if (reuse) {
      runs[w] = prior[w];
      ctx.progress(`  ${w} worker(s): reusing the delivery phase's runs`);
    } else {
      Object.assign(runs, await drainBoth(ctx, { n, splits: [w] }));
    }
  }
  const table = splits.map((w) => {
    const p = runs[w].petrel;
    const b = runs[w].baseline;
    return {
      workers: w,
      petrel: p.emails_per_s,
      baseline: b?.emails_per_s ?? null,
      ratio: ratio(p.emails_per_s, b?.emails_per_s),
      unit: 'emails/s',
      p99_ms: p.accept_to_250_ms.p99,
      cpu: { petrel: p.cpu, baseline: b?.cpu ?? null },
    };
  });
  return {
    table,
    best: { petrel: best(runs, 'petrel')?.workers, baseline: best(runs, 'baseline')?.workers },
    setup: { n, concurrency_per_process: ctx.opts.concurrency, smtp_pool_per_process: ctx.opts.pool },
  };
}

/** The JSON of this phase is the per-split array: one entry per split. */
export function toJson(r) {
  return r.table;
}

export function rows(r) {
  return r.table.map((t) => ({
    phase: 'scaling',
    metric: `${t.workers} worker process${t.workers > 1 ? 'es' : ''}: emails/s`,
    petrel: fmtInt(t.petrel),
    baseline: fmtInt(t.baseline),
    ratio: t.ratio,
    target: 'info',
    met: null,
    cpu_petrel: t.cpu.petrel,
    cpu_baseline: t.cpu.baseline,
  }));
}
