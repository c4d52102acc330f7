// What the phases that compare a large account with a small one share (dashboard, metrics,
// inboxes): a progress line while filling, timed GETs through the API, the measurement loop that
// alternates requests between the two accounts (so load from elsewhere on the machine hits both
// alike), and the table rows of the p99 ratios.
import { ApiKeysStore, Keys, createRedis } from '@petrel/store';
import { PETREL_PREFIX, startPetrelApi } from './stacks.mjs';
import { fmtInt, httpJson, now, percentile, round } from './util.mjs';

/** The small account's size; the large one has 100× as many (1M). */
export const SMALL = 10_000;
/** The small account under --quick (CI's smoke run: the same 100× gap, filled in seconds). */
export const SMALL_QUICK = 500;
/** The target: p99 at the large account ≤ 1.5 × p99 at the small one. */
export const TARGET = 1.5;
/** Emails written per store call while filling, and calls in flight. */
export const PER_CALL = 100;
export const IN_FLIGHT = 16;
/** Measured requests per query and account, after WARMUP unmeasured ones. */
export const SAMPLES = 300;
export const WARMUP = 20;
/** --quick (the CI smoke run): enough to show the phase works, not a p99 to quote. */
export const SAMPLES_QUICK = 40;

/** Measured requests per query and account in this run: SAMPLES (--quick: SAMPLES_QUICK). */
export const samplesOf = (ctx) => (ctx.opts.quick ? SAMPLES_QUICK : SAMPLES);

/** The two accounts' sizes of this run: SMALL and 100× as many (--quick: SMALL_QUICK). */
export function accountSizes(ctx) {
  const smallN = ctx.opts.quick ? SMALL_QUICK : SMALL;
  return { smallN, largeN: 100 * smallN };
}

/**
 * The API on an emptied Redis, a connection of the bench's own to fill it, and `team(label)`: a
 * new team and its API key's token. `close()` stops both and empties Redis again (a million
 * emails need not stay for the next phase).
 */
export async function startAccounts(ctx) {
  await ctx.redis.reset();
  const api = await startPetrelApi(ctx);
  const redis = createRedis(ctx.redis.url);
  const keys = new Keys(PETREL_PREFIX);
  const apiKeys = new ApiKeysStore(redis, keys);
  return {
    api,
    redis,
    keys,
    async team(label) {
      const id = await apiKeys.createTeam(`bench-${label}`);
      return { id, token: (await apiKeys.create(id, { name: label })).token };
    },
    async close() {
      await redis.quit().catch(() => undefined);
      await api.stop();
      await ctx.redis.reset();
    },
  };
}

/** Times a fill: `tick(done)` prints `filled done / total unit (rate unit/s)` at most every 3 s. */
export function fillProgress(ctx, total, unit, from = 0) {
  const started = now();
  let shown = started;
  return {
    tick(done) {
      if (now() - shown <= 3_000) return;
      shown = now();
      const rate = fmtInt(((done - from) / (now() - started)) * 1000);
      ctx.progress(`  filled ${fmtInt(done)} / ${fmtInt(total)} ${unit} (${rate} ${unit}/s)`);
    },
    /** Seconds since the fill started, one decimal. */
    seconds: () => round((now() - started) / 1000, 1),
  };
}

/** GET `path` through the API: how long it took (ms) and the body's text; not 200 throws. */
export async function timedGet(api, path, headers) {
  const t = now();
  const res = await httpJson('GET', `${api.url}${path}`, { headers });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${res.text.slice(0, 200)}`);
  return { ms: now() - t, text: res.text };
}

/** p50 and p99 of timings (ms, two decimals). */
function p50p99(times) {
  const s = [...times].sort((a, b) => a - b);
  return { p50: round(percentile(s, 50), 2), p99: round(percentile(s, 99), 2) };
}

/**
 * Each query `warmup + samples` times on both accounts, a request to the small one then the
 * large one; p50 / p99 of the samples per account. `sides.small` and `sides.large` are
 * `{ n, headers, queries }` (the same query names); `check(name, small, large)` sees the first
 * answers (e.g. to refuse an empty page). Prints one line per query (`unit`: what n counts).
 */
export async function measurePairs(ctx, api, sides, { warmup, samples, unit, pad, check }) {
  const out = { small: {}, large: {} };
  const { small, large } = sides;
  for (const k of Object.keys(small.queries)) {
    const ts = [];
    const tl = [];
    for (let i = 0; i < warmup + samples; i++) {
      const a = await timedGet(api, small.queries[k], small.headers);
      const b = await timedGet(api, large.queries[k], large.headers);
      if (i === 0) check?.(k, a.text, b.text);
      if (i < warmup) continue;
      ts.push(a.ms);
      tl.push(b.ms);
    }
    out.small[k] = p50p99(ts);
    out.large[k] = p50p99(tl);
    ctx.progress(
      `  ${k.padEnd(pad)} p50 / p99: ${out.small[k].p50} / ${out.small[k].p99} ms at ${fmtInt(small.n)} ${unit}, ` +
        `${out.large[k].p50} / ${out.large[k].p99} ms at ${fmtInt(large.n)}`,
    );
  }
  return out;
}

/** p99 large / p99 small per query (two decimals), printed on one line against `target`. */
export function p99Ratios(ctx, pages, { smallN, largeN, target }) {
  const ratios = Object.fromEntries(
    Object.keys(pages.small).map((k) => [k, round(pages.large[k].p99 / pages.small[k].p99, 2)]),
  );
  const each = Object.entries(ratios).map(([k, r]) => `${k} ${r}×`);
  ctx.progress(`  p99 ratio ${fmtInt(largeN)} / ${fmtInt(smallN)}: ${each.join(', ')} (target ≤ ${target}×)`);
  return ratios;
}

/** The phase's headline: query `key`'s p99 at both accounts; met when every query's ratio is. */
export function ratioSummary(pages, ratios, key, baselineIs) {
  return {
    petrel: pages.large[key].p99,
    baseline: pages.small[key].p99,
    baseline_is: baselineIs,
    ratio: ratios[key],
    unit: 'ms p99',
    target: { ratio_max: TARGET },
    met: Math.max(...Object.values(ratios)) <= TARGET,
  };
}

/**
 * One table row per query: its p99 at the large account against the small one's. `what(k)`
 * names the query; `sizes` are the accounts' `{ small, large }` counts of `unit`.
 */
export function ratioRows(phase, what, { pages, ratios, sizes, unit = 'emails', target = TARGET }) {
  return Object.keys(ratios).map((k) => ({
    phase,
    metric: `${what(k)} at ${fmtInt(sizes.large)} ${unit} vs ${fmtInt(sizes.small)}`,
    petrel: `${pages.large[k].p99}`,
    baseline: `${pages.small[k].p99} (${fmtInt(sizes.small)} ${unit})`,
    ratio: ratios[k],
    target: `≤ ${target.toFixed(1)}×`,
    met: ratios[k] <= target,
  }));
}
