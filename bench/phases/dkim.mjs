// Phase dkim — delivery with DKIM signing. The delivery phase's emails, from a domain the team
// created through POST /domains (an RSA-2048 key generated and sealed by Petrel; the sign stage
// signs every email: relaxed/relaxed, RFC 6376 section 5.4.1 headers, From/To/Subject
// oversigned), drained into the sink. Compared, in the same run, with the raw stack's worker
// signing with nodemailer's DKIM (the same RSA-2048 key size, its default header list), and with
// Petrel delivering the same emails unsigned (the cost of signing).
import { generateKeyPairSync } from 'node:crypto';
import { drainRun } from '../lib/drain.mjs';
import { FROM_DOMAIN } from '../lib/payload.mjs';
import { fmtInt, httpJson, medianRun, ratio } from '../lib/util.mjs';
import { deliveryEmail } from './delivery.mjs';

export const name = 'dkim';
export const order = 25;
export const title = 'DKIM: delivery signed with RSA-2048, Petrel vs nodemailer DKIM, and vs unsigned';

/** Creates the bench's from-domain through the API: from then on the workers sign its emails. */
async function createDomain(api) {
  const res = await httpJson('POST', `${api.url}/domains`, {
    headers: api.headers,
    body: { name: FROM_DOMAIN },
  });
  if (res.status !== 201) throw new Error(`POST /domains: ${res.status} ${JSON.stringify(res.body)}`);
  return deliveryEmail;
}

export async function run(ctx) {
  // --quick proves the code path (CI): a few hundred emails are enough
  const n = ctx.opts.quick ? Math.min(ctx.opts.n, 300) : ctx.opts.n;
  const workers = ctx.opts.quick ? 1 : 2;
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const baselineDkim = {
    env: {
      DKIM_PRIVATE_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      DKIM_DOMAIN: FROM_DOMAIN,
      DKIM_SELECTOR: 'bench',
    },
  };
  const signed = [];
  const plain = [];
  const baseline = [];
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    if (!ctx.opts.skipBaseline) {
      const b = await drainRun(ctx, {
        system: 'baseline',
        n,
        workers,
        emailAt: deliveryEmail,
        workerOpts: baselineDkim,
      });
      baseline.push(b);
      ctx.progress(
        `  baseline nodemailer DKIM run ${rep + 1}: ${fmtInt(b.emails_per_s)} emails/s, worker ${b.cpu.worker_ms_per_email} ms/email`,
      );
    }
    const s = await drainRun(ctx, {
      system: 'petrel',
      n,
      workers,
      emailAt: deliveryEmail,
      prepare: createDomain,
    });
    signed.push(s);
    ctx.progress(
      `  petrel   DKIM            run ${rep + 1}: ${fmtInt(s.emails_per_s)} emails/s, worker ${s.cpu.worker_ms_per_email} ms/email`,
    );
    const p = await drainRun(ctx, { system: 'petrel', n, workers, emailAt: deliveryEmail });
    plain.push(p);
    ctx.progress(
      `  petrel   unsigned        run ${rep + 1}: ${fmtInt(p.emails_per_s)} emails/s, worker ${p.cpu.worker_ms_per_email} ms/email`,
    );
  }
  const s = medianRun(signed);
  const p = medianRun(plain);
  const b = baseline.length ? medianRun(baseline) : null;
  const rat = ratio(s.emails_per_s, b?.emails_per_s);
  return {
    petrel: s.emails_per_s,
    baseline: b?.emails_per_s ?? null,
    ratio: rat,
    unit: 'emails/s',
    p50_ms: s.accept_to_250_ms.p50,
    p99_ms: s.accept_to_250_ms.p99,
    unsigned: p.emails_per_s,
    ratio_vs_unsigned: ratio(s.emails_per_s, p.emails_per_s),
    target: { ratio_min: 1.5 },
    met: rat !== null && rat >= 1.5,
    setup: { n, workers, reps: ctx.opts.reps, key: 'RSA-2048', canonicalization: 'relaxed/relaxed' },
    cpu: { petrel: s.cpu, baseline: b?.cpu, unsigned: p.cpu },
    runs: { signed: s, unsigned: p, baseline: b },
  };
}

export function rows(r) {
  return [
    {
      phase: 'dkim',
      metric: `emails/s signed with RSA-2048 @${r.setup.workers}w (accept→250 p50 / p99 ms)`,
      petrel: `${fmtInt(r.petrel)} (${fmtInt(r.p50_ms)} / ${fmtInt(r.p99_ms)})`,
      baseline: `${fmtInt(r.baseline)} (nodemailer DKIM)`,
      ratio: r.ratio,
      target: '≥ 1.50×',
      met: r.met,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.baseline,
    },
    {
      phase: 'dkim',
      metric: `emails/s signed vs unsigned Petrel @${r.setup.workers}w`,
      petrel: fmtInt(r.petrel),
      baseline: `${fmtInt(r.unsigned)} (Petrel, unsigned)`,
      ratio: r.ratio_vs_unsigned,
      target: 'cost of signing',
      met: null,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.unsigned,
    },
  ];
}
