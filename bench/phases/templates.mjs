// Phase 3 — templates. The delivery phase again, but every email is sent from a published
// template with variables (`template: { id, variables }`, no html/text in the request), so the
// worker renders each one. Compared against Petrel's phase-2 figure at the same worker split:
// the ratio is the cost of rendering. The template is created and published through the API
// with the official `resend` SDK.
import { Resend } from 'resend';
import { drainRun } from '../lib/drain.mjs';
import { templatedEmail, templateSource } from '../lib/payload.mjs';
import { fmtInt, medianRun, ratio } from '../lib/util.mjs';
import { deliveryEmail } from './delivery.mjs';

export const name = 'templates';
export const order = 30;
export const title = 'Templates: delivery with every email rendered from a published template';

export class Skip extends Error {}

async function createTemplate(api) {
  const resend = new Resend(api.headers.authorization.replace(/^Bearer /, ''), { baseUrl: api.url });
  const src = templateSource();
  const created = await resend.templates.create(src);
  if (created.error) {
    const e = created.error;
    if (e.statusCode === 404 || e.statusCode === 405)
      throw new Skip(`the API has no template routes (${e.statusCode} ${e.message})`);
    throw new Error(`templates.create: ${e.statusCode} ${e.name}: ${e.message}`);
  }
  const id = created.data.id;
  const pub = await resend.templates.publish(id);
  if (pub.error)
    throw new Error(`templates.publish: ${pub.error.statusCode} ${pub.error.name}: ${pub.error.message}`);
  return id;
}

export async function run(ctx) {
  const n = ctx.opts.n;
  const prior = ctx.results.delivery;
  // the split Petrel did best with in phase 2 (2 processes when phase 2 did not run)
  const workers = prior?.best_split?.petrel ?? (ctx.opts.quick ? 1 : 2);
  let plain = prior?.runs?.[workers]?.petrel;
  const fresh = !plain || plain.n !== n;
  const plains = [];
  const templates = [];
  try {
    for (let rep = 0; rep < ctx.opts.reps; rep++) {
      if (fresh) {
        const p = await drainRun(ctx, { system: 'petrel', n, workers, emailAt: deliveryEmail });
        plains.push(p);
        ctx.progress(`  petrel   plain     run ${rep + 1}: ${fmtInt(p.emails_per_s)} emails/s`);
      }
      const t = await drainRun(ctx, {
        system: 'petrel',
        n,
        workers,
        prepare: async (api) => {
          const id = await createTemplate(api);
          return (i) => templatedEmail(i, id);
        },
      });
      templates.push(t);
      ctx.progress(
        `  petrel   templated run ${rep + 1}: ${fmtInt(t.emails_per_s)} emails/s, accept→250 p99 ${fmtInt(t.accept_to_250_ms.p99)} ms, ` +
          `cpu: workers ${t.cpu.workers}%, redis ${t.cpu.redis}%; worker ${t.cpu.worker_ms_per_email} ms/email`,
      );
    }
  } catch (err) {
    if (err instanceof Skip) {
      ctx.progress(`  skipped: ${err.message}`);
      return {
        skipped: err.message,
        petrel: null,
        baseline: plain?.emails_per_s ?? null,
        ratio: null,
        unit: 'emails/s',
      };
    }
    throw err;
  }
  if (fresh) plain = medianRun(plains);
  const templated = medianRun(templates);
  const raw = prior ? prior.baseline : null;
  return {
    petrel: templated.emails_per_s,
    baseline: plain.emails_per_s,
    baseline_is: `Petrel without templates (phase 2), ${workers} worker process(es)`,
    ratio: ratio(templated.emails_per_s, plain.emails_per_s),
    unit: 'emails/s',
    p50_ms: templated.accept_to_250_ms.p50,
    p99_ms: templated.accept_to_250_ms.p99,
    raw_stack_baseline: raw,
    ratio_vs_raw_stack: ratio(templated.emails_per_s, raw),
    setup: { n, workers, template_bytes: templateSource().html.length, variables: 2 },
    cpu: { petrel: templated.cpu, baseline: plain.cpu },
    runs: { templated, plain },
  };
}

export function rows(r) {
  if (r.skipped) {
    return [
      {
        phase: 'templates',
        metric: 'emails/s from a published template',
        petrel: `skipped: ${r.skipped}`,
        baseline: fmtInt(r.baseline),
        ratio: null,
        target: 'info',
      },
    ];
  }
  return [
    {
      phase: 'templates',
      metric: `emails/s rendered from a template vs plain Petrel @${r.setup.workers}w`,
      petrel: `${fmtInt(r.petrel)} (${fmtInt(r.p50_ms)} / ${fmtInt(r.p99_ms)})`,
      baseline: `${fmtInt(r.baseline)} (Petrel, plain)`,
      ratio: r.ratio,
      target: `cost of rendering${r.ratio_vs_raw_stack ? `; ${r.ratio_vs_raw_stack.toFixed(2)}× the raw stack` : ''}`,
      met: null,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.baseline,
    },
  ];
}
