// Phase — broadcast fan-out. A broadcast to a segment of N contacts (written straight through
// ContactsStore.upsertMany, as an import would) is sent with the official `resend` SDK; the
// scheduler process (apps/scheduler/dist/main.js) turns it into N email records and N send jobs
// on the broadcast lane, page by page (no worker runs: the phase measures the fan-out alone).
// Reported per size: contacts → send jobs enqueued per second (the record's started_ms to its
// sent_at), the scheduler's peak RSS (sampled every 100 ms) and CPU per contact (scheduler and
// Redis). Baseline, same run, same Redis: the raw BullMQ `Queue.addBulk` of N equivalent jobs
// (payload { v, teamId, emailId }, job id, the send jobs' options) in batches of 1,000 — the
// queue work alone, no records. Targets: ≥ 0.5× the raw addBulk rate; peak RSS ≤ 300 MB; at
// 1,000,000 contacts (full mode) the peak within 20 % of the 100,000 one.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Resend } from 'resend';
import { sendQueueNames } from '@petrel/contracts';
import { ContactsStore, Keys } from '@petrel/store';
import { cpuSnapshot } from '../lib/cpu.mjs';
import { API_KEY, PETREL_PREFIX, ROOT, startPetrelApi, startPetrelProcess } from '../lib/stacks.mjs';
import { fmtInt, now, ratio, round, sleep } from '../lib/util.mjs';

export const name = 'fanout';
export const order = 80;
export const title =
  'Broadcast fan-out: contacts → send jobs/s vs raw addBulk, scheduler peak RSS at 100k and 1M';

// --quick: several fan-out pages (1,000 contacts each) at both sizes, filled in a second or two
const SIZES = { full: [100_000, 1_000_000], quick: [2_000, 5_000] };
const RATIO_TARGET = 0.5;
const RSS_LIMIT_MIB = 300;
const RSS_TOLERANCE = 0.2;
const SCHEDULER_MAIN = join(ROOT, 'apps/scheduler/dist/main.js');
export const BROADCAST_FROM = 'Petrel News <news@broadcast.example>';

/** Resident set size of `pid` in MiB, or null when it is gone. */
export function rssMiB(pid) {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The peak RSS of `pid`, sampled every 100 ms until `stop()`. */
function peakRss(pid) {
  let peak = rssMiB(pid) ?? 0;
  const timer = setInterval(() => (peak = Math.max(peak, rssMiB(pid) ?? 0)), 100);
  return {
    stop() {
      clearInterval(timer);
      return round(Math.max(peak, rssMiB(pid) ?? 0), 1);
    },
  };
}

/** apps/scheduler/dist/main.js on the bench's Redis. */
export async function startPetrelScheduler(ctx, env = {}) {
  const { child } = await startPetrelProcess(ctx, {
    name: 'petrel-scheduler',
    main: SCHEDULER_MAIN,
    what: 'Petrel scheduler',
    env,
  });
  return { child, stop: () => child.stop(15_000) };
}

/**
 * A segment of `n` contacts `c<i>@fan.example` (first names set), written in batches of 5,000
 * through ContactsStore.upsertMany on the bench's Redis. Returns the team and the segment.
 */
export async function segmentOf(ctx, api, n) {
  const resend = new Resend(API_KEY, { baseUrl: api.url });
  const seg = await resend.segments.create({ name: `fanout ${n}` });
  if (seg.error) throw new Error(`segments.create: ${seg.error.message}`);
  const keys = new Keys(PETREL_PREFIX);
  const [teamId] = await ctx.redis.client.smembers(keys.teams());
  const contacts = new ContactsStore(ctx.redis.client, keys);
  const t0 = now();
  let shown = t0;
  for (let i = 0; i < n; i += 5_000) {
    const rows = Array.from({ length: Math.min(5_000, n - i) }, (_, j) => ({
      email: `c${i + j}@fan.example`,
      first_name: `Reader${i + j}`,
    }));
    await contacts.upsertMany(teamId, rows, { onConflict: 'upsert', segments: [seg.data.id], topics: [] });
    if (now() - shown > 5_000) {
      shown = now();
      ctx.progress(`  contacts written: ${fmtInt(i + rows.length)} of ${fmtInt(n)}`);
    }
  }
  return { resend, keys, teamId, segmentId: seg.data.id, writeS: round((now() - t0) / 1000, 1) };
}

/** Creates and sends a broadcast to the segment; returns its id. */
export async function sendBroadcast(resend, segmentId) {
  const created = await resend.broadcasts.create({
    segmentId,
    from: BROADCAST_FROM,
    subject: 'News for {{{contact.first_name|you}}}',
    html: '<p>Hello {{{contact.first_name|there}}},</p><p>Our news.</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>',
  });
  if (created.error) throw new Error(`broadcasts.create: ${created.error.message}`);
  const sent = await resend.broadcasts.send(created.data.id);
  if (sent.error) throw new Error(`broadcasts.send: ${sent.error.message}`);
  return created.data.id;
}

async function petrelRun(ctx, n) {
  await ctx.redis.reset();
  const api = await startPetrelApi(ctx);
  const scheduler = await startPetrelScheduler(ctx);
  try {
    const { resend, keys, teamId, segmentId, writeS } = await segmentOf(ctx, api, n);
    const pid = scheduler.child.pid;
    const rss = peakRss(pid);
    const startRss = rssMiB(pid);
    const a = await cpuSnapshot({ scheduler: pid }, ctx.redis.client);
    const id = await sendBroadcast(resend, segmentId);
    const key = keys.broadcast(teamId, id);
    let shown = now();
    for (;;) {
      const [status, total] = await ctx.redis.client.hmget(key, 'status', 'total');
      if (status === 'sent') break;
      if (status !== 'queued' && status !== 'scheduled') throw new Error(`broadcast ${id} is ${status}`);
      if (now() - shown > 2_000) {
        shown = now();
        ctx.progress(
          `  ${fmtInt(n)} contacts: ${fmtInt(Number(total ?? 0))} fanned out, scheduler RSS ${fmtInt(rssMiB(pid))} MiB`,
        );
      }
      await sleep(50);
    }
    const b = await cpuSnapshot({ scheduler: pid }, ctx.redis.client);
    const peak = rss.stop();
    const [startedMs, sentAt, enqueued] = await ctx.redis.client.hmget(
      key,
      'started_ms',
      'sent_at',
      'enqueued',
    );
    const seconds = (Date.parse(sentAt) - Number(startedMs)) / 1000;
    if (Number(enqueued) !== n) throw new Error(`broadcast ${id}: ${enqueued} enqueued of ${n}`);
    const queued = await laneWaiting(ctx);
    if (queued !== n) throw new Error(`broadcast lane holds ${queued} jobs, not ${n}`);
    const schedulerS = b.per.scheduler - a.per.scheduler;
    const redisS = b.redis.self - a.redis.self;
    const result = {
      contacts: n,
      write_contacts_s: writeS,
      fanout_s: round(seconds, 2),
      contacts_per_s: Math.round(n / seconds),
      scheduler_rss_mib: { start: round(startRss, 1), peak },
      cpu_us_per_contact: {
        scheduler: round((schedulerS / n) * 1e6, 1),
        redis: round((redisS / n) * 1e6, 1),
      },
    };
    ctx.progress(
      `  petrel   ${fmtInt(n)} contacts → ${fmtInt(n)} send jobs in ${result.fanout_s} s = ${fmtInt(result.contacts_per_s)}/s; ` +
        `scheduler peak RSS ${peak} MiB (start ${result.scheduler_rss_mib.start}); CPU per contact: scheduler ` +
        `${result.cpu_us_per_contact.scheduler} µs, redis ${result.cpu_us_per_contact.redis} µs`,
    );
    return result;
  } finally {
    await scheduler.stop();
    await api.stop();
  }
}

/** Waiting jobs on the broadcast lane (every shard). */
async function laneWaiting(ctx) {
  let total = 0;
  for (const name of sendQueueNames('broadcast', Number(ctx.petrelEnv?.QUEUE_SHARDS ?? 1))) {
    const q = new Queue(name, { connection: ctx.redis.client, prefix: `${PETREL_PREFIX}:bull` });
    total += await q.getWaitingCount();
    await q.close();
  }
  return total;
}

/** The raw stack: `n` send-job-shaped jobs added with Queue.addBulk, 1,000 per call. */
async function baselineRun(ctx, n) {
  await ctx.redis.reset();
  const queue = new Queue('{baseline-fanout}', { connection: ctx.redis.client, prefix: 'base:bull' });
  await queue.waitUntilReady();
  const teamId = randomUUID();
  const t0 = now();
  const a = await cpuSnapshot({}, ctx.redis.client);
  for (let i = 0; i < n; i += 1_000) {
    await queue.addBulk(
      Array.from({ length: Math.min(1_000, n - i) }, () => {
        const emailId = randomUUID();
        return {
          name: 'send',
          data: { v: 1, teamId, emailId },
          opts: {
            jobId: emailId,
            attempts: 1000,
            backoff: { type: 'smtp-retry' },
            removeOnComplete: true,
            removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
          },
        };
      }),
    );
  }
  const seconds = (now() - t0) / 1000;
  const b = await cpuSnapshot({}, ctx.redis.client);
  await queue.close();
  const result = {
    jobs: n,
    seconds: round(seconds, 2),
    jobs_per_s: Math.round(n / seconds),
    cpu_us_per_job: {
      bench: round(((b.bench - a.bench) / n) * 1e6, 1),
      redis: round(((b.redis.self - a.redis.self) / n) * 1e6, 1),
    },
  };
  ctx.progress(
    `  baseline ${fmtInt(n)} jobs with Queue.addBulk (1,000 per call) in ${result.seconds} s = ${fmtInt(result.jobs_per_s)}/s`,
  );
  return result;
}

export async function run(ctx) {
  const sizes = ctx.opts.quick ? SIZES.quick : SIZES.full;
  const runs = [];
  let baseline;
  try {
    for (const n of sizes) {
      runs.push(await petrelRun(ctx, n));
      if (!baseline) baseline = await baselineRun(ctx, n);
    }
  } finally {
    await ctx.redis.reset(); // a million contacts and jobs need not stay for the next phase
  }
  const ref = runs[0];
  const large = runs[runs.length - 1];
  const growth = large.scheduler_rss_mib.peak / ref.scheduler_rss_mib.peak - 1;
  const rat = ratio(ref.contacts_per_s, baseline.jobs_per_s);
  return {
    petrel: ref.contacts_per_s,
    baseline: baseline.jobs_per_s,
    baseline_is: `raw BullMQ Queue.addBulk of ${fmtInt(baseline.jobs)} equivalent jobs, 1,000 per call`,
    ratio: rat,
    unit: 'contacts/s',
    target: { ratio_min: RATIO_TARGET, rss_max_mib: RSS_LIMIT_MIB, rss_growth_max: RSS_TOLERANCE },
    met: rat !== null && rat >= RATIO_TARGET && ref.scheduler_rss_mib.peak <= RSS_LIMIT_MIB,
    rss_growth: round(growth, 3),
    // the flat-memory check compares 100k with 1M (full mode); quick sizes are too small for it
    rss_flat: ctx.opts.quick ? null : growth <= RSS_TOLERANCE,
    sizes,
    runs,
    baseline_run: baseline,
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  const ref = r.runs[0];
  const large = r.runs[r.runs.length - 1];
  return [
    {
      phase: 'fanout',
      metric: `contacts → broadcast send jobs/s, ${fmtInt(ref.contacts)} contacts (scheduler CPU ${ref.cpu_us_per_contact.scheduler} µs, redis ${ref.cpu_us_per_contact.redis} µs per contact)`,
      petrel: fmtInt(r.petrel),
      baseline: `${fmtInt(r.baseline)} (raw addBulk)`,
      ratio: r.ratio,
      target: `≥ ${RATIO_TARGET.toFixed(2)}×`,
      met: r.ratio !== null && r.ratio >= RATIO_TARGET,
    },
    {
      phase: 'fanout',
      metric: `scheduler peak RSS, ${fmtInt(ref.contacts)} contacts`,
      petrel: `${ref.scheduler_rss_mib.peak} MiB`,
      baseline: '',
      ratio: null,
      target: `≤ ${RSS_LIMIT_MIB} MB`,
      met: ref.scheduler_rss_mib.peak <= RSS_LIMIT_MIB,
    },
    {
      phase: 'fanout',
      metric: `scheduler peak RSS, ${fmtInt(large.contacts)} vs ${fmtInt(ref.contacts)} contacts (${fmtInt(large.contacts_per_s)} contacts/s at ${fmtInt(large.contacts)})`,
      petrel: `${large.scheduler_rss_mib.peak} vs ${ref.scheduler_rss_mib.peak} MiB (${r.rss_growth >= 0 ? '+' : ''}${round(100 * r.rss_growth, 1)} %)`,
      baseline: '',
      ratio: null,
      target: `within ${RSS_TOLERANCE * 100} % (full mode)`,
      met: r.rss_flat,
    },
  ];
}
