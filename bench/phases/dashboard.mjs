// Phase — dashboard. The email list page on a large account. Two teams of one Petrel, filled
// through the store's own write path (EmailsStore.stage: the records, their outbox entries and
// the search indexes, as acceptance writes them; 100 emails per call, 16 calls in flight): one
// with 10k emails, one with 1M (--quick: 500 and 50k), the same mix (1 email in 100 to each of 100
// recipients, two tag values, a few subject words). Then GET /emails through the API process for:
// the first page, a next page (`after=` an email half-way down the listing), a filtered page
// (`to=` one recipient), a status page (after the middle) and a combined filter (to + tag);
// requests to the two teams alternate, so load from elsewhere on the machine hits both alike.
// p99 of 300 requests per team and page (--quick: 40). Target: p99 at 1M ≤ 1.5 × p99 at 10k —
// the pages answer from sorted-set indexes (O(log N) to find the place, O(page) to read it),
// never a scan.
// Also prints the gzip size of the built dashboard (apps/dashboard/dist), when it is built.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EmailsStore } from '@petrel/store';
import { ROOT } from '../lib/stacks.mjs';
import * as scale from '../lib/scale.mjs';
import { fmtInt, round } from '../lib/util.mjs';

export const name = 'dashboard';
export const order = 90;
export const title =
  'Email list page p99 at 1M emails vs 10k (first, next, filtered pages); SPA bundle gzip size';

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
  const progress = scale.fillProgress(ctx, to, 'emails', from);
  const lane = async () => {
    for (;;) {
      const start = next;
      if (start >= to) return;
      next = Math.min(to, start + scale.PER_CALL);
      const emails = [];
      for (let i = start; i < next; i++) emails.push(newEmail(i));
      await store.stage(teamId, emails, new Date(t0 + start));
      progress.tick(next);
    }
  };
  await Promise.all(Array.from({ length: scale.IN_FLIGHT }, lane));
  return progress.seconds();
}

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
  const side = async (t) => ({
    n: t.n,
    headers: { authorization: `Bearer ${t.token}` },
    queries: await queries(t),
  });
  const sides = { small: await side(teams.small), large: await side(teams.large) };
  return scale.measurePairs(ctx, api, sides, {
    warmup: scale.WARMUP,
    samples: scale.samplesOf(ctx),
    unit: 'emails',
    pad: 8,
  });
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
  const { smallN, largeN } = scale.accountSizes(ctx);
  const accounts = await scale.startAccounts(ctx);
  const { api, redis, keys } = accounts;
  try {
    const team = async (label, n) => ({ ...(await accounts.team(label)), n });
    const teams = { small: await team('small', smallN), large: await team('large', largeN) };
    const store = new EmailsStore(redis, keys, 30 * DAY, { statsRetentionMs: 30 * DAY });
    // creation times 1 ms apart ending about now: every email within the retention
    const fillSmallS = await fill(ctx, store, teams.small.id, 0, smallN, Date.now() - smallN);
    const fillLargeS = await fill(ctx, store, teams.large.id, 0, largeN, Date.now() - largeN);
    const pages = await measure(ctx, api, keys, teams);
    const ratios = scale.p99Ratios(ctx, pages, { smallN, largeN, target: scale.TARGET });
    const bundle = bundleGzip();
    ctx.progress(
      bundle
        ? `  dashboard bundle: ${bundle.gzip_kib} KiB gzip (${bundle.raw_kib} KiB raw)`
        : '  dashboard bundle: apps/dashboard/dist not built',
    );
    return {
      ...scale.ratioSummary(pages, ratios, 'first', `the same page at ${fmtInt(smallN)} emails`),
      ratios,
      pages,
      bundle,
      setup: {
        small: smallN,
        large: largeN,
        fill_s: { small: fillSmallS, large: fillLargeS },
        samples: scale.samplesOf(ctx),
      },
    };
  } finally {
    await accounts.close();
  }
}

export function rows(r) {
  return [
    ...scale.ratioRows('dashboard', (k) => `GET /emails ${k} page p99 ms`, {
      pages: r.pages,
      ratios: r.ratios,
      sizes: r.setup,
    }),
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
