// Phase — dashboard. The email list page on a large account. Two teams of one Petrel, filled
// through the store's own write path (EmailsStore.stage: the records, their outbox entries and
// the search indexes, as acceptance writes them; 100 emails per call, 16 calls in flight): one
// with 10k emails, one with 1M (--quick: 500 and 50k), the same mix (1 email in 100 to each of 100
// recipients, two tag values, a few subject words). Then GET /emails through the API process for:
// the first page, a next page (`after=` an email half-way down the listing), a filtered page
// (`to=` one recipient), a status page (after the middle) and a combined filter (to + tag);
// requests to the two teams alternate, so load from elsewhere on the machine hits both alike.
// p99 of 300 requests per team and page. Target: p99 at 1M ≤ 1.5 × p99 at 10k — the pages answer
// from sorted-set indexes (O(log N) to find the place, O(page) to read it), never a scan.
// Also prints the gzip size of the built dashboard (apps/dashboard/dist), when it is built.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { ApiKeysStore, EmailsStore, Keys, createRedis } from '@petrel/store';
import { PETREL_PREFIX, ROOT, startPetrelApi } from '../lib/stacks.mjs';
import { fmtInt, httpJson, now, percentile, round } from '../lib/util.mjs';

export const name = 'dashboard';
export const order = 90;
export const title =
  'Email list page p99 at 1M emails vs 10k (first, next, filtered pages); SPA bundle gzip size';

const SMALL = 10_000;
/** The small team under --quick (the large one has 100× as many). */
const SMALL_QUICK = 500;
const TARGET = 1.5;
const PER_CALL = 100;
const IN_FLIGHT = 16;
const SAMPLES = 300;
const WARMUP = 20;
const RECIPIENTS = 100;
const DAY = 86_400_000;

/** Email i: one of RECIPIENTS recipients, a tag of two values, a subject of a few words. */
function newEmail(i) {
  const id = `0190${String(i).padStart(12, '0')}-bench`;
  return {
    id,
    content: {
      from: 'Bench <bench@bench.example>',
      to: [`reader${i % RECIPIENTS}@rcpt.example`],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: `Weekly digest ${i % 7} for reader ${i % RECIPIENTS}`,
      html: '<p>Hello</p>',
      headers: {},
      tags: [{ name: 'kind', value: i % 2 ? 'digest' : 'welcome' }],
      attachments: [],
    },
    status: 'queued',
    lane: 'send',
    dueMs: 0,
    messageId: `<${id}@bench.example>`,
    event: {
      id: `ev-${id}`,
      type: 'email.queued',
      created_at: new Date().toISOString(),
      data: { email_id: id },
    },
  };
}

/** Fill the team from `from` to `to` emails (creation times 1 ms apart, ending now). */
async function fill(ctx, store, teamId, from, to, t0) {
  let next = from;
  let shown = now();
  const started = now();
  const lane = async () => {
    for (;;) {
      const start = next;
      if (start >= to) return;
      next = Math.min(to, start + PER_CALL);
      const emails = [];
      for (let i = start; i < next; i++) emails.push(newEmail(i));
      await store.stage(teamId, emails, new Date(t0 + start));
      if (now() - shown > 3_000) {
        shown = now();
        ctx.progress(
          `  filled ${fmtInt(next)} / ${fmtInt(to)} emails (${fmtInt(((next - from) / (now() - started)) * 1000)} emails/s)`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return round((now() - started) / 1000, 1);
}

async function timedGet(api, path, token) {
  const t = now();
  const res = await httpJson('GET', `${api.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 200)}`);
  return now() - t;
}

const stats = (times) => {
  const s = [...times].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50), 2), p99: round(percentile(s, 99), 2) };
};

/** The pages of each team (cursors from its listing as it is), requests to the two alternating. */
async function measure(ctx, api, keys, teams) {
  const queries = async (t) => {
    const mid = Math.floor(t.n / 2);
    const [middle] = await ctx.redis.client.zrevrange(keys.emails(t.id), mid, mid);
    return {
      first: '/emails?limit=20',
      next: `/emails?limit=20&after=${middle}`,
      to: '/emails?limit=20&to=reader7%40rcpt.example',
      status: `/emails?limit=20&status=queued&after=${middle}`,
      combined: '/emails?limit=20&to=reader7%40rcpt.example&tag=kind%3Ddigest',
    };
  };
  const [qs, ql] = [await queries(teams.small), await queries(teams.large)];
  const small = {};
  const large = {};
  for (const k of Object.keys(qs)) {
    const ts = [];
    const tl = [];
    for (let i = 0; i < WARMUP + SAMPLES; i++) {
      const a = await timedGet(api, qs[k], teams.small.token);
      const b = await timedGet(api, ql[k], teams.large.token);
      if (i < WARMUP) continue;
      ts.push(a);
      tl.push(b);
    }
    small[k] = stats(ts);
    large[k] = stats(tl);
    ctx.progress(
      `  ${k.padEnd(8)} page p50 / p99: ${small[k].p50} / ${small[k].p99} ms at ${fmtInt(teams.small.n)} emails, ` +
        `${large[k].p50} / ${large[k].p99} ms at ${fmtInt(teams.large.n)}`,
    );
  }
  return { small, large };
}

/** Sum of the gzip sizes of the built dashboard's files (KiB), or null when not built. */
function bundleGzip() {
  const dist = join(ROOT, 'apps/dashboard/dist');
  if (!existsSync(join(dist, 'index.html'))) return null;
  let raw = 0;
  let gz = 0;
  const walk = (dir) => {
    for (const f of readdirSync(dir)) {
      const p = join(dir, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.(js|css|html)$/.test(f)) {
        const buf = readFileSync(p);
        raw += buf.length;
        gz += gzipSync(buf, { level: 9 }).length;
      }
    }
  };
  walk(dist);
  return { raw_kib: round(raw / 1024, 1), gzip_kib: round(gz / 1024, 1) };
}

export async function run(ctx) {
  // --quick is CI's smoke run: the same 100× gap at a size that fills in seconds
  const largeN = ctx.opts.quick ? 100 * SMALL_QUICK : 1_000_000;
  const smallN = ctx.opts.quick ? SMALL_QUICK : SMALL;
  await ctx.redis.reset();
  const api = await startPetrelApi(ctx);
  const redis = createRedis(ctx.redis.url);
  try {
    const keys = new Keys(PETREL_PREFIX);
    const apiKeys = new ApiKeysStore(redis, keys);
    const team = async (label, n) => {
      const id = await apiKeys.createTeam(`bench-${label}`);
      return { id, n, token: (await apiKeys.create(id, { name: label })).token };
    };
    const teams = { small: await team('small', smallN), large: await team('large', largeN) };
    const store = new EmailsStore(redis, keys, 30 * DAY, { statsRetentionMs: 30 * DAY });
    // creation times 1 ms apart ending about now: every email within the retention
    const fillSmallS = await fill(ctx, store, teams.small.id, 0, smallN, Date.now() - smallN);
    const fillLargeS = await fill(ctx, store, teams.large.id, 0, largeN, Date.now() - largeN);
    const { small, large: big } = await measure(ctx, api, keys, teams);
    const ratios = Object.fromEntries(
      Object.keys(small).map((k) => [k, round(big[k].p99 / small[k].p99, 2)]),
    );
    const worst = Math.max(...Object.values(ratios));
    const bundle = bundleGzip();
    ctx.progress(
      `  p99 ratio ${fmtInt(largeN)} / ${fmtInt(smallN)}: ${Object.entries(ratios)
        .map(([k, r]) => `${k} ${r}×`)
        .join(', ')} (target ≤ ${TARGET}×)`,
    );
    ctx.progress(
      bundle
        ? `  dashboard bundle: ${bundle.gzip_kib} KiB gzip (${bundle.raw_kib} KiB raw)`
        : '  dashboard bundle: apps/dashboard/dist not built',
    );
    return {
      petrel: big.first.p99,
      baseline: small.first.p99,
      baseline_is: `the same page at ${fmtInt(smallN)} emails`,
      ratio: ratios.first,
      unit: 'ms p99',
      target: { ratio_max: TARGET },
      met: worst <= TARGET,
      ratios,
      pages: { small, large: big },
      bundle,
      setup: {
        small: smallN,
        large: largeN,
        fill_s: { small: fillSmallS, large: fillLargeS },
        samples: SAMPLES,
      },
    };
  } finally {
    await redis.quit().catch(() => undefined);
    await api.stop();
    await ctx.redis.reset(); // a million emails need not stay for the next phase
  }
}

export function rows(r) {
  const n = fmtInt(r.setup.large);
  return [
    ...Object.keys(r.ratios).map((k) => ({
      phase: 'dashboard',
      metric: `GET /emails ${k} page p99 ms at ${n} emails vs ${fmtInt(r.setup.small)}`,
      petrel: `${r.pages.large[k].p99}`,
      baseline: `${r.pages.small[k].p99} (${fmtInt(r.setup.small)} emails)`,
      ratio: r.ratios[k],
      target: `≤ ${TARGET.toFixed(1)}×`,
      met: r.ratios[k] <= TARGET,
    })),
    {
      phase: 'dashboard',
      metric: 'dashboard bundle (js + css + html), gzip',
      petrel: r.bundle ? `${r.bundle.gzip_kib} KiB` : 'not built',
      baseline: r.bundle ? `${r.bundle.raw_kib} KiB raw` : '',
      ratio: null,
      target: '',
      met: null,
    },
  ];
}
