// Phase 6 — Redis Cluster. Petrel's ingest (phase 1's measurement) and delivery (phase 2's) on
// three Redis setups in the same run, alternating, each with the same persistence (AOF
// everysec, noeviction, no RDB):
//   single    the bench's own redis-server, QUEUE_SHARDS=1 (what every other phase uses)
//   1 master  a 1-node Redis Cluster, QUEUE_SHARDS=1: the cost of the cluster protocol alone
//             (slot routing in the client, the one-slot steps of the acceptance)
//   3 masters a 3-node Redis Cluster, QUEUE_SHARDS=3 (one send shard per master): the same
//             work spread over three Redis processes
// Reported as ratios to the single node. Every Redis process shares this machine's cores with
// the API, the workers, the sink and the load generator, so a cluster cannot go faster here than
// the cores allow; what carries over to a real deployment is the Redis CPU per email (summed
// over the masters), from which README.md works out the cores a cluster needs.
import { drainRun } from '../lib/drain.mjs';
import { startRedisCluster } from '../lib/redis-cluster.mjs';
import { fmtInt, medianRun, ratio, round } from '../lib/util.mjs';
import { deliveryEmail } from './delivery.mjs';
import { ingestBodies, once as ingestOnce } from './ingest.mjs';

export const name = 'cluster';
export const order = 60;
export const title = 'Redis Cluster: ingest and delivery on 1 and 3 masters, against a single node';

const SETUPS = [
  { key: 'single', label: 'single node', masters: 0, shards: 1 },
  { key: 'masters1', label: '1 master', masters: 1, shards: 1 },
  { key: 'masters3', label: '3 masters', masters: 3, shards: 3 },
];
/** The 3-master target: at least this share of the single node's throughput. */
const TARGET = 0.9;

/** Each master's share (%) of the Redis CPU between two `cpuPerMaster()` readings. */
function masterShares(a, b) {
  const deltas = Object.keys(b).map((port) => b[port] - (a[port] ?? 0));
  const total = deltas.reduce((s, d) => s + d, 0);
  return total > 0 ? deltas.map((d) => round((d / total) * 100, 0)) : null;
}

/** µs of Redis CPU per email from a run's CPU (% of one core, summed over masters) and rate. */
const redisUsPerEmail = (cpu, perS) =>
  perS && cpu?.redis != null ? round((cpu.redis * 10_000) / perS, 1) : null;

export async function run(ctx) {
  // --quick proves the code paths (CI): a few hundred emails per delivery are enough
  const n = ctx.opts.quick ? Math.min(ctx.opts.n, 300) : ctx.opts.n;
  const workers = ctx.opts.quick ? 1 : 2;
  const ingestOpts = {
    durationS: ctx.opts.ingestSeconds,
    warmupS: ctx.opts.quick ? 0.5 : 1,
    connections: 10,
  };
  const bodies = ingestBodies();
  const clusters = {};
  try {
    for (const s of SETUPS.filter((s) => s.masters > 0)) {
      clusters[s.key] = await startRedisCluster({ masters: s.masters, name: `redis-${s.key}` });
      ctx.progress(`  ${s.label}: ${clusters[s.key].url}`);
    }
    const runs = Object.fromEntries(SETUPS.map((s) => [s.key, { ingest: [], delivery: [] }]));
    for (let rep = 0; rep < ctx.opts.reps; rep++) {
      for (const s of SETUPS) {
        const redis = s.masters ? clusters[s.key] : ctx.redis;
        const sub = { ...ctx, redis, petrelEnv: { ...ctx.petrelEnv, QUEUE_SHARDS: String(s.shards) } };
        const of = `${rep + 1}/${ctx.opts.reps}`;

        let before = s.masters ? await redis.cpuPerMaster() : null;
        const ing = await ingestOnce(sub, 'petrel', bodies, ingestOpts);
        if (s.masters) ing.master_cpu_shares_pct = masterShares(before, await redis.cpuPerMaster());
        runs[s.key].ingest.push(ing);
        ctx.progress(
          `  ${s.label.padEnd(11)} ingest   run ${of}: ${fmtInt(ing.emails_per_s)} emails/s, p99 ${ing.p99_ms} ms, ` +
            `redis ${ing.cpu.redis_us_per_email} µs/email${ing.master_cpu_shares_pct ? ` (masters ${ing.master_cpu_shares_pct.join('/')} %)` : ''}` +
            `${ing.non2xx ? `, ${ing.non2xx} non-2xx (${ing.first_error})` : ''}`,
        );

        before = s.masters ? await redis.cpuPerMaster() : null;
        const del = await drainRun(sub, { system: 'petrel', n, workers, emailAt: deliveryEmail });
        del.cpu.redis_us_per_email = redisUsPerEmail(del.cpu, del.emails_per_s);
        if (s.masters) del.master_cpu_shares_pct = masterShares(before, await redis.cpuPerMaster());
        runs[s.key].delivery.push(del);
        ctx.progress(
          `  ${s.label.padEnd(11)} delivery run ${of}: ${fmtInt(del.emails_per_s)} emails/s (${workers} worker${workers > 1 ? 's' : ''}), ` +
            `redis ${del.cpu.redis_us_per_email} µs/email${del.master_cpu_shares_pct ? ` (masters ${del.master_cpu_shares_pct.join('/')} %)` : ''}, ` +
            `cpu: workers ${del.cpu.workers}%, redis ${del.cpu.redis}%, machine ${del.cpu.machine}%, other ${del.cpu.other}%`,
        );
      }
    }

    const out = { setups: {}, setup: { n, workers, reps: ctx.opts.reps, ingest: ingestOpts, shards: {} } };
    for (const s of SETUPS) {
      const ingest = medianRun(runs[s.key].ingest);
      const delivery = medianRun(runs[s.key].delivery);
      out.setup.shards[s.key] = s.shards;
      out.setups[s.key] = {
        label: s.label,
        masters: s.masters || null,
        ingest_emails_per_s: ingest.emails_per_s,
        ingest_p99_ms: ingest.p99_ms,
        delivery_emails_per_s: delivery.emails_per_s,
        redis_us_per_email: {
          ingest: ingest.cpu.redis_us_per_email,
          delivery: delivery.cpu.redis_us_per_email,
          // an email costs Redis both: accepted once, delivered once
          total: round((ingest.cpu.redis_us_per_email ?? 0) + (delivery.cpu.redis_us_per_email ?? 0), 1),
        },
        master_cpu_shares_pct: {
          ingest: ingest.master_cpu_shares_pct,
          delivery: delivery.master_cpu_shares_pct,
        },
        cpu: { ingest: ingest.cpu, delivery: delivery.cpu },
        runs: runs[s.key],
      };
    }
    const single = out.setups.single;
    for (const s of SETUPS.filter((s) => s.masters)) {
      const r = out.setups[s.key];
      r.ingest_ratio = ratio(r.ingest_emails_per_s, single.ingest_emails_per_s);
      r.delivery_ratio = ratio(r.delivery_emails_per_s, single.delivery_emails_per_s);
    }
    const m3 = out.setups.masters3;
    out.target = { three_masters_ratio_min: TARGET };
    out.met = m3.ingest_ratio !== null && m3.ingest_ratio >= TARGET && m3.delivery_ratio >= TARGET;
    return out;
  } finally {
    for (const c of Object.values(clusters)) await c.stop().catch(() => undefined);
  }
}

export function rows(r) {
  const single = r.setups.single;
  const out = [];
  for (const key of ['masters1', 'masters3']) {
    const c = r.setups[key];
    const target = key === 'masters3' ? `≥ ${TARGET.toFixed(2)}×` : 'info';
    const met = (v) => (key === 'masters3' ? v !== null && v >= TARGET : null);
    out.push(
      {
        phase: 'cluster',
        metric: `ingest on ${c.label} (QUEUE_SHARDS=${r.setup.shards[key]}) vs a single node: accepted emails/s (p99 ms)`,
        petrel: `${fmtInt(c.ingest_emails_per_s)} (${c.ingest_p99_ms})`,
        baseline: `${fmtInt(single.ingest_emails_per_s)} (${single.ingest_p99_ms})`,
        ratio: c.ingest_ratio,
        target,
        met: met(c.ingest_ratio),
        cpu_petrel: c.cpu.ingest,
        cpu_baseline: single.cpu.ingest,
      },
      {
        phase: 'cluster',
        metric: `delivery on ${c.label} vs a single node: emails/s, ${r.setup.workers} worker process${r.setup.workers > 1 ? 'es' : ''}`,
        petrel: fmtInt(c.delivery_emails_per_s),
        baseline: fmtInt(single.delivery_emails_per_s),
        ratio: c.delivery_ratio,
        target,
        met: met(c.delivery_ratio),
        cpu_petrel: c.cpu.delivery,
        cpu_baseline: single.cpu.delivery,
      },
      {
        phase: 'cluster',
        metric: `Redis CPU per email on ${c.label}, µs, sum of the masters (ingest + delivery)`,
        petrel: `${c.redis_us_per_email.ingest} + ${c.redis_us_per_email.delivery} = ${c.redis_us_per_email.total}`,
        baseline: `${single.redis_us_per_email.ingest} + ${single.redis_us_per_email.delivery} = ${single.redis_us_per_email.total}`,
        ratio: ratio(c.redis_us_per_email.total, single.redis_us_per_email.total),
        target: 'info (lower is better)',
        met: null,
      },
    );
  }
  return out;
}
