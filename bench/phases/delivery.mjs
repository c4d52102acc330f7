// Phase 2 — delivery. N emails queued (Petrel: through the real API while no worker runs;
// baseline: addBulk of the same payloads), then drained into the sink by 1 and 2 worker
// processes. Headline: each side's best split. Petrel: worker loads the record, lean MIME
// builder, nodemailer given `raw`, outcome recorded. Baseline: bare BullMQ Worker + pooled
// nodemailer composing message objects.
import { drainRun } from '../lib/drain.mjs';
import { email } from '../lib/payload.mjs';
import { fmtInt, medianRun, ratio } from '../lib/util.mjs';

export const name = 'delivery';
export const order = 20;
export const title = 'Delivery: queued emails drained into the SMTP sink';

export const deliveryEmail = (i) => email(i, 'standard', 'd');

/** Runs baseline and Petrel drains for each split; returns { [workers]: { petrel, baseline } }. */
export async function drainBoth(ctx, { n, splits, prepare, emailAt = deliveryEmail, label = '' }) {
  const all = {};
  const reps = ctx.opts.reps;
  for (let rep = 0; rep < reps; rep++) {
    for (const workers of splits) {
      for (const system of ['baseline', 'petrel']) {
        if (system === 'baseline' && ctx.opts.skipBaseline) continue;
        const r = await drainRun(ctx, {
          system,
          n,
          workers,
          emailAt,
          ...(system === 'petrel' && prepare ? { prepare } : {}),
        });
        ((all[workers] ??= {})[system] ??= []).push(r);
        ctx.progress(
          `  ${label}${system.padEnd(8)} ${workers} worker${workers > 1 ? 's' : ' '}${reps > 1 ? ` run ${rep + 1}/${reps}` : ''}: ` +
            `${fmtInt(r.emails_per_s)} emails/s ` +
            `(steady ${fmtInt(r.steady_emails_per_s)}), accept→250 p50 ${fmtInt(r.accept_to_250_ms.p50)} / p99 ${fmtInt(r.accept_to_250_ms.p99)} ms, ` +
            `cpu: workers ${r.cpu.workers}%, redis ${r.cpu.redis}%, sink ${r.cpu.sink}%, machine ${r.cpu.machine}%, other ${r.cpu.other}%; ` +
            `worker ${r.cpu.worker_ms_per_email} ms/email`,
        );
      }
    }
  }
  // each split and side: the median repetition
  const out = {};
  for (const [w, bySystem] of Object.entries(all)) {
    out[w] = {};
    for (const [system, list] of Object.entries(bySystem)) out[w][system] = medianRun(list);
  }
  return out;
}

export function best(runs, system) {
  let b;
  for (const w of Object.keys(runs)) {
    const r = runs[w][system];
    if (r && (!b || r.emails_per_s > b.emails_per_s)) b = r;
  }
  return b;
}

export async function run(ctx) {
  const n = ctx.opts.n;
  const splits = ctx.opts.quick ? [1] : [1, 2];
  const runs = await drainBoth(ctx, { n, splits });
  const p = best(runs, 'petrel');
  const b = best(runs, 'baseline');
  const rat = ratio(p?.emails_per_s, b?.emails_per_s);
  return {
    petrel: p?.emails_per_s ?? null,
    baseline: b?.emails_per_s ?? null,
    ratio: rat,
    unit: 'emails/s',
    p50_ms: p?.accept_to_250_ms.p50 ?? null,
    p99_ms: p?.accept_to_250_ms.p99 ?? null,
    baseline_p50_ms: b?.accept_to_250_ms.p50 ?? null,
    baseline_p99_ms: b?.accept_to_250_ms.p99 ?? null,
    best_split: { petrel: p?.workers, baseline: b?.workers },
    target: { ratio_min: 1.3, emails_per_s_min: 2400 },
    met: rat !== null && rat >= 1.3 && p.emails_per_s >= 2400,
    setup: {
      n,
      splits,
      reps: ctx.opts.reps,
      concurrency_per_process: ctx.opts.concurrency,
      smtp_pool_per_process: ctx.opts.pool,
      html_bytes: deliveryEmail(0).html.length,
      text_bytes: deliveryEmail(0).text.length,
      note: 'latency of a pre-filled queue is dominated by the wait in the backlog; see the mixed phase for latency under load',
    },
    cpu: { petrel: p?.cpu, baseline: b?.cpu },
    runs,
  };
}

export function rows(r) {
  return [
    {
      phase: 'delivery',
      metric: `emails/s, median of ${r.setup.reps}, best of ${r.setup.splits.join('/')} worker procs (accept→250 p50 / p99 ms)`,
      petrel: `${fmtInt(r.petrel)} @${r.best_split.petrel}w (${fmtInt(r.p50_ms)} / ${fmtInt(r.p99_ms)})`,
      baseline: `${fmtInt(r.baseline)} @${r.best_split.baseline}w (${fmtInt(r.baseline_p50_ms)} / ${fmtInt(r.baseline_p99_ms)})`,
      ratio: r.ratio,
      target: '≥ 1.30× and ≥ 2,400/s',
      met: r.met,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.baseline,
    },
  ];
}
