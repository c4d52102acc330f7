// One delivery measurement: N emails queued while no worker runs, then W worker processes
// started and timed until the sink holds all N. Throughput is measured at the sink, from the
// first to the last message received, so process start-up does not count for either side.
// CPU is sampled over the same window.
import { cpuDelta, cpuSnapshot } from './cpu.mjs';
import { postBatches } from './load.mjs';
import {
  BASE_PREFIX,
  BASE_QUEUE,
  PETREL_PREFIX,
  fillBaselineQueue,
  petrelSendQueues,
  startBaselineWorkers,
  startPetrelApi,
  startPetrelWorkers,
  waitingJobs,
} from './stacks.mjs';
import { now, round } from './util.mjs';

/**
 * @param {object} ctx
 * @param {object} o
 * @param {'petrel'|'baseline'} o.system
 * @param {number} o.n emails
 * @param {number} o.workers worker processes
 * @param {(i:number)=>object} o.emailAt email number i (request-body shape)
 * @param {(api)=>Promise<(i:number)=>object>} [o.prepare] Petrel only: runs against the API
 *   before the fill (e.g. creates a template) and returns the emailAt to fill with
 * @param {number} [o.messagesPerEmail] SMTP messages each email becomes at the sink (1; one per
 *   recipient for a topic email): the drain waits for n × this, and `emails_per_s` divides by it
 */
export async function drainRun(ctx, o) {
  const { system, n, workers } = o;
  await ctx.redis.reset();
  await ctx.sink.reset();

  let fill;
  const t0 = now();
  if (system === 'petrel') {
    const api = await startPetrelApi(ctx);
    try {
      const emailAt = o.prepare ? await o.prepare(api) : o.emailAt;
      fill = await postBatches(api, { n, emailAt });
    } finally {
      await api.stop();
    }
  } else {
    await fillBaselineQueue(ctx, n, o.emailAt);
    fill = { accepted: n, seconds: round((now() - t0) / 1000, 2) };
  }
  const prefix = system === 'petrel' ? `${PETREL_PREFIX}:bull` : BASE_PREFIX;
  const queues = system === 'petrel' ? petrelSendQueues(ctx) : [BASE_QUEUE];
  const waiting = await waitingJobs(ctx, prefix, queues);
  // Petrel queues one group job per 100-email request (docs/architecture.md, "Acceptance")
  const jobs = system === 'petrel' ? Math.ceil(n / 100) : n;
  if (waiting !== jobs)
    throw new Error(`${system}: expected ${jobs} waiting jobs after the fill, found ${waiting}`);

  const stack =
    system === 'petrel'
      ? await startPetrelWorkers(ctx, workers, o.workerOpts)
      : await startBaselineWorkers(ctx, workers, o.workerOpts);
  const procs = { sink: ctx.sink.pid };
  stack.workers.forEach((w) => (procs[w.name] = w.child.pid));
  await ctx.redis.resetStats();
  const spawnSnap = await cpuSnapshot(procs, ctx.redis.client);
  for (const k of Object.keys(spawnSnap.per)) if (k !== 'sink') spawnSnap.per[k] = 0;
  const tSpawn = now();
  let firstSnap;
  let result;
  try {
    const perEmail = o.messagesPerEmail ?? 1;
    await ctx.sink.waitFor(n * perEmail, {
      watch: stack.children,
      stallMs: ctx.opts.quick ? 20_000 : 60_000,
      onTick: async (s) => {
        if (!firstSnap && s.count > 0) firstSnap = await cpuSnapshot(procs, ctx.redis.client);
      },
    });
    const endSnap = await cpuSnapshot(procs, ctx.redis.client);
    const wall = (now() - tSpawn) / 1000;
    const sum = await ctx.sink.summary();
    const stats = await ctx.sink.stats();
    const cpu = cpuDelta(firstSnap && firstSnap.t < endSnap.t - 200 ? firstSnap : spawnSnap, endSnap);
    cpu.workers = stack.workers.reduce((a, w) => a + (cpu[w.name] ?? 0), 0);
    // CPU cost per email, robust to other load on the machine: ms of CPU per delivered email
    if (sum.rate) {
      const emailsPerS = sum.rate / perEmail;
      cpu.worker_ms_per_email = round((cpu.workers * 10) / emailsPerS, 3);
      cpu.total_ms_per_email = round(
        ((cpu.workers + (cpu.redis ?? 0) + (cpu.sink ?? 0)) * 10) / emailsPerS,
        3,
      );
    }
    const failed = (
      await Promise.all(queues.map((queue) => ctx.redis.client.zcard(`${prefix}:${queue}:failed`)))
    ).reduce((a, b) => a + b, 0);
    // cross-check of the sink's latency: Petrel's own histogram (sum / count = mean)
    let workerMean = null;
    if (system === 'petrel') {
      let sumS = 0;
      let count = 0;
      for (const text of await stack.metrics().catch(() => [])) {
        sumS += Number(
          (text.match(/^petrel_accept_to_delivered_seconds_sum(?:\{[^}]*\})? ([\d.e+-]+)$/m) || [])[1] || 0,
        );
        count += Number(
          (text.match(/^petrel_accept_to_delivered_seconds_count(?:\{[^}]*\})? ([\d.e+-]+)$/m) || [])[1] || 0,
        );
      }
      if (count) workerMean = Math.round((sumS / count) * 1000);
    }
    result = {
      system,
      n,
      workers,
      emails_per_s: round(sum.rate / perEmail, 0),
      steady_emails_per_s: round(sum.steady_rate / perEmail, 0),
      ...(perEmail !== 1 ? { messages_per_s: round(sum.rate, 0) } : {}),
      drain_s: round((sum.last - sum.first) / 1000, 2),
      wall_s_from_spawn: round(wall, 2),
      accept_to_250_ms: sum.latency_ms,
      ...(workerMean !== null ? { worker_histogram_mean_ms: workerMean } : {}),
      fill,
      redis_commands: await ctx.redis.commandStats(8, n),
      duplicates: stats.dup,
      failed_jobs: failed,
      cpu,
    };
  } finally {
    await stack.stop();
  }
  return result;
}
