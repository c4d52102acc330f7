// Phase — metrics. GET /emails/metrics on a large account, and what counting costs per email.
//
// 1. Two teams of one Petrel, filled through the store's own write paths — EmailsStore.stage
//    (records, `received`) and EmailsStore.recordEvents (each email's sent + delivered, or a
//    bounce for 2 %; an open for 25 %, a click for 5 %: the counting script behind each) — with
//    transactional emails spread evenly over the last 29 days, 5 sending domains, 1 email in 10 a
//    broadcast's (10 broadcasts per team, created through the API, each sent in one burst, its
//    opens and clicks over the next 48 hours): 10k emails and 1M (--quick:
//    500 and 50k). The large team's emails past the small team's count are written as the
//    counters the write path would have added for them (the same metrics, domains, broadcasts and
//    hours, summed per hour: HINCRBY), so a million emails' worth is seeded in seconds. Then four queries through the API process, requests to the two teams
//    alternating: totals of the default 7 days; daily periods of 29 days in America/New_York;
//    hourly periods × domain over 7 days; broadcasts over 29 days. p99 of 300 requests each
//    (--quick: 40).
//    Target: p99 at 1M ≤ 1.5 × p99 at 10k — the answer reads one hash per hour of the range,
//    whose size follows the domains and broadcasts of that hour, not the emails.
// 2. The write cost of counting: K emails (--quick: 500) recorded as sent + delivered through
//    petrelRecordEmailEvents naming no metric (the script as before the counters) and K through
//    EmailsStore.recordEvents (the same script counting sent and delivered for the team and the
//    domain), in alternating blocks of 500, 16 calls in flight; Redis CPU (INFO cpu) and this
//    process's CPU per email of each.
import {
  EmailsStore,
  EVENTS_STREAM_MAXLEN,
  defineScripts,
  eventCountArgs,
  statsBucket,
  statusRank,
} from '@petrel/store';
import * as scale from '../lib/scale.mjs';
import { fmtInt, httpJson, round } from '../lib/util.mjs';

export const name = 'metrics';
export const order = 91;
export const title =
  'GET /emails/metrics p99 at 1M emails vs 10k; Redis and client CPU per email of the counters';

const DOMAINS = 5;
const BROADCASTS = 10;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const SPAN = 29 * DAY;
const COST_BLOCK = 500;

const idOf = (team, i) => `0190${String(i).padStart(8, '0')}-${team.slice(0, 4)}-7000-8000-000000000000`;

function newEmail(team, i, broadcastId) {
  const id = idOf(team, i);
  return {
    id,
    content: {
      from: `Bench <bench@d${i % DOMAINS}.bench.example>`,
      to: [`reader${i % 1000}@rcpt.example`],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Weekly digest',
      html: '<p>Hello</p>',
      headers: {},
      tags: [],
      attachments: [],
    },
    status: 'queued',
    lane: broadcastId ? 'broadcast' : 'send',
    dueMs: 0,
    messageId: `<${id}@bench.example>`,
    ...(broadcastId && { broadcastId }),
    event: {
      id: `q-${id}`,
      type: 'email.queued',
      created_at: new Date().toISOString(),
      data: { email_id: id },
    },
  };
}

const event = (id, type, at, broadcastId, extra = {}) => ({
  id: `${type}-${id}`,
  type,
  created_at: new Date(at).toISOString(),
  teamId: 'bench',
  data: { email_id: id, ...(broadcastId && { broadcast_id: broadcastId }), ...extra },
});

/** Email i's broadcast: 1 email in 10, the broadcasts in turn. */
const broadcastOf = (broadcasts, i) =>
  i % 10 === 0 ? broadcasts[Math.floor(i / 10) % BROADCASTS] : undefined;

/**
 * When email i's events happen: a transactional email's all at its own time (spread over SPAN);
 * a broadcast's as broadcasts go out — every email of broadcast k sent in its one burst (k + ½
 * tenths into SPAN), its opens and clicks trailing over the next 48 hours.
 */
function eventTimes(i, n, t0) {
  const own = t0 + Math.floor((i / n) * SPAN);
  if (i % 10 !== 0) return { send: own, engage: own };
  const k = Math.floor(i / 10) % BROADCASTS;
  const send = t0 + Math.floor(((k + 0.5) / BROADCASTS) * SPAN);
  // (never past the range's end: the last broadcast's readers are still coming)
  return { send, engage: Math.min(send + (Math.floor(i / 10) % 48) * HOUR, t0 + SPAN - HOUR) };
}

/** The counters email i adds (as the write path counts it): see fill. */
function emailMetrics(i) {
  if (i % 50 === 7) return ['received', 'bounced', 'bounced_permanent'];
  const m = ['received', 'sent', 'delivered'];
  if (i % 4 === 1) m.push('opened', 'unique_opened');
  if (i % 20 === 3) m.push('clicked', 'unique_clicked');
  return m;
}

/**
 * Emails [from, n) of a team as counters only: what the write path would have added to the hour
 * hashes for them (the same metrics, domains, broadcasts and hours as fill's), summed per hour and
 * written with HINCRBY — a million emails' worth of counters in seconds instead of an hour.
 */
async function seedCounters(redis, keys, team, from, n, t0) {
  const sums = new Map();
  const add = (key, field) => {
    let h = sums.get(key);
    if (!h) sums.set(key, (h = new Map()));
    h.set(field, (h.get(field) ?? 0) + 1);
  };
  const expiry = new Map();
  for (let i = from; i < n; i++) {
    const times = eventTimes(i, n, t0);
    const b = broadcastOf(team.broadcasts, i);
    for (const m of emailMetrics(i)) {
      // `received` at acceptance (the email's own time), the rest when its events happen
      const at =
        m === 'received' ? t0 + Math.floor((i / n) * SPAN) : /open|click/.test(m) ? times.engage : times.send;
      const hour = Math.floor(at / HOUR) * HOUR;
      const stats = keys.emailStats(team.id, hour);
      const domains = keys.emailMetricsDomains(team.id, hour);
      expiry.set(stats, hour + HOUR + 31 * DAY);
      expiry.set(domains, hour + HOUR + 31 * DAY);
      add(stats, `t:${m}`);
      add(domains, `d${i % DOMAINS}.bench.example:${m}`);
      if (b && m !== 'received') {
        const broadcasts = keys.emailMetricsBroadcasts(team.id, hour);
        expiry.set(broadcasts, hour + HOUR + 31 * DAY);
        add(broadcasts, `${b}:${m}`);
      }
    }
  }
  let batch = redis.pipeline();
  let queued = 0;
  for (const [key, fields] of sums) {
    for (const [field, count] of fields) batch.hincrby(key, field, count);
    batch.pexpireat(key, expiry.get(key));
    if ((queued += fields.size) > 5_000) {
      await batch.exec();
      batch = redis.pipeline();
      queued = 0;
    }
  }
  await batch.exec();
}

/**
 * Fill a team with `n` emails, times spread over the last SPAN: the first `real` through the
 * write path (records, events and their counting scripts), the rest as their counters
 * (seedCounters).
 */
async function fill(ctx, redis, keys, team, n, broadcasts, real = n) {
  const t0 = Date.now() - SPAN;
  let next = 0;
  const progress = scale.fillProgress(ctx, n, 'emails');
  const lane = async () => {
    // each lane its own store: its counters' clock is the time of the email it writes
    const clock = { t: 0, now: () => clock.t };
    const store = new EmailsStore(redis, keys, 31 * DAY, { statsRetentionMs: 31 * DAY, clock });
    for (;;) {
      const start = next;
      if (start >= real) return;
      next = Math.min(real, start + scale.PER_CALL);
      clock.t = t0 + Math.floor((start / n) * SPAN);
      const emails = [];
      for (let i = start; i < next; i++) emails.push(newEmail(team.id, i, broadcastOf(broadcasts, i)));
      await store.stage(team.id, emails, new Date(clock.t));
      for (const e of emails) {
        const i = Number(e.id.slice(4, 12));
        const b = e.broadcastId;
        const { send: at, engage } = eventTimes(i, n, t0);
        clock.t = at;
        if (i % 50 === 7) {
          await store.recordEvents(team.id, e.id, [
            {
              status: 'bounced',
              event: event(e.id, 'email.bounced', at, b, { bounce: { type: 'Permanent' } }),
            },
          ]);
          continue;
        }
        await store.recordEvents(team.id, e.id, [
          { status: 'sent', event: event(e.id, 'email.sent', at, b) },
          { status: 'delivered', event: event(e.id, 'email.delivered', at, b) },
        ]);
        clock.t = engage;
        if (i % 4 === 1)
          await store.recordEvents(team.id, e.id, [
            { status: 'opened', event: event(e.id, 'email.opened', engage, b) },
          ]);
        if (i % 20 === 3)
          await store.recordEvents(team.id, e.id, [
            {
              status: 'clicked',
              event: event(e.id, 'email.clicked', engage, b, {
                click: { link: `https://shop.example/${i % 3}` },
              }),
            },
          ]);
      }
      progress.tick(next);
    }
  };
  await Promise.all(Array.from({ length: scale.IN_FLIGHT }, lane));
  if (real < n) await seedCounters(redis, keys, team, real, n, t0);
  return progress.seconds();
}

async function measure(ctx, api, teams) {
  const start = new Date(Date.now() - SPAN).toISOString();
  const week = new Date(Date.now() - 7 * DAY).toISOString();
  const queries = {
    totals: '/emails/metrics',
    daily_tz: `/emails/metrics?dimensions=period&timezone=America/New_York&start_date=${start}`,
    hourly_domain: `/emails/metrics?dimensions=period,domain&granularity=hourly&start_date=${week}`,
    broadcast: `/emails/metrics?dimensions=broadcast&start_date=${start}`,
  };
  const side = (t) => ({ n: t.n, headers: { authorization: `Bearer ${t.token}` }, queries });
  const samples = scale.samplesOf(ctx);
  const sides = { small: side(teams.small), large: side(teams.large) };
  return scale.measurePairs(ctx, api, sides, { warmup: scale.WARMUP, samples, unit: 'emails', pad: 13 });
}

async function redisCpu(redis) {
  const info = await redis.info('cpu');
  const get = (k) => Number((info.match(new RegExp(`^${k}:([\\d.]+)`, 'm')) || [])[1] || 0);
  return get('used_cpu_sys') + get('used_cpu_user');
}

/** Redis and client CPU per email of recording sent + delivered, without and with the counters. */
export async function writeCost(ctx, redis, keys, teamId, k) {
  const store = new EmailsStore(redis, keys, DAY, { statsRetentionMs: DAY });
  const scripts = defineScripts(redis);
  const ids = Array.from({ length: 2 * k }, (_, i) => idOf('cost', i));
  for (let i = 0; i < ids.length; i += scale.PER_CALL)
    await store.stage(
      teamId,
      ids.slice(i, i + scale.PER_CALL).map((id, j) => newEmail('cost', i + j)),
      new Date(),
    );
  const head = (ev) => JSON.stringify({ ...ev, data: { ...ev.data, sequence: 0 } }).slice(0, -3);
  // the record script without the counters (what EmailsStore.recordEvents sent before them):
  // the same call with no metric named for either event
  const recordOnly = async (id) => {
    const at = Date.now();
    const hour = statsBucket(keys, teamId, at, DAY);
    const counts = eventCountArgs(keys, teamId, [], hour, DAY);
    const recordKeys = [
      keys.email(teamId, id),
      keys.emailEvents(teamId, id),
      keys.events(teamId),
      keys.unfinishedEmails(teamId, 'send'),
      keys.unfinishedEmails(teamId, 'broadcast'),
      hour.key,
      ...store.search.statusKeys(teamId),
      ...counts.keys,
    ];
    await scripts.petrelRecordEmailEvents(
      recordKeys.length,
      ...recordKeys,
      EVENTS_STREAM_MAXLEN,
      0,
      'sent',
      statusRank('sent'),
      head(event(id, 'email.sent', at)),
      '',
      '',
      'delivered',
      statusRank('delivered'),
      head(event(id, 'email.delivered', at)),
      '',
      '',
      ...counts.tail,
    );
  };
  const withCounts = (id) => {
    const at = Date.now();
    return store.recordEvents(teamId, id, [
      { status: 'sent', event: event(id, 'email.sent', at) },
      { status: 'delivered', event: event(id, 'email.delivered', at) },
    ]);
  };
  const totals = { before: { redis: 0, client: 0, n: 0 }, after: { redis: 0, client: 0, n: 0 } };
  for (let b = 0; b < k; b += COST_BLOCK) {
    for (const [mode, fn, offset] of [
      ['before', recordOnly, 0],
      ['after', withCounts, k],
    ]) {
      const block = ids.slice(offset + b, offset + Math.min(k, b + COST_BLOCK));
      const r0 = await redisCpu(redis);
      const c0 = process.cpuUsage();
      let next = 0;
      await Promise.all(
        Array.from({ length: scale.IN_FLIGHT }, async () => {
          while (next < block.length) await fn(block[next++]);
        }),
      );
      const c = process.cpuUsage(c0);
      totals[mode].redis += (await redisCpu(redis)) - r0;
      totals[mode].client += (c.user + c.system) / 1e6;
      totals[mode].n += block.length;
    }
  }
  const per = (t) => ({
    redis_us: round((t.redis / t.n) * 1e6, 1),
    client_us: round((t.client / t.n) * 1e6, 1),
  });
  const out = { before: per(totals.before), after: per(totals.after), emails: k };
  ctx.progress(
    `  recording sent + delivered, µs per email: Redis ${out.before.redis_us} → ${out.after.redis_us}, ` +
      `client ${out.before.client_us} → ${out.after.client_us} (record script alone → with the counters; ${fmtInt(k)} emails each)`,
  );
  return out;
}

export async function run(ctx) {
  const { smallN, largeN } = scale.accountSizes(ctx);
  const accounts = await scale.startAccounts(ctx);
  const { api, redis, keys } = accounts;
  try {
    const team = async (label, n) => {
      const { id, token } = await accounts.team(label);
      const post = async (path, body) => {
        const res = await httpJson('POST', `${api.url}${path}`, {
          body,
          headers: { authorization: `Bearer ${token}` },
        });
        if (res.status >= 300) throw new Error(`POST ${path}: ${res.status} ${res.text.slice(0, 200)}`);
        return JSON.parse(res.text);
      };
      const segment = await post('/segments', { name: 'bench' });
      const broadcasts = [];
      for (let i = 0; i < BROADCASTS; i++) {
        const b = await post('/broadcasts', {
          segment_id: segment.id,
          name: `Bench ${i}`,
          from: `news@d${i % DOMAINS}.bench.example`,
          subject: 'Hi',
          html: '<p>x</p>',
        });
        broadcasts.push(b.id);
      }
      return { id, n, token, broadcasts };
    };
    const teams = { small: await team('small', smallN), large: await team('large', largeN) };
    // the small team through the write path; the large one too for as many, the rest as counters
    const fillSmallS = await fill(ctx, redis, keys, teams.small, smallN, teams.small.broadcasts);
    const fillLargeS = await fill(ctx, redis, keys, teams.large, largeN, teams.large.broadcasts, smallN);
    const queries = await measure(ctx, api, teams);
    const ratios = scale.p99Ratios(ctx, queries, { smallN, largeN, target: scale.TARGET });
    const cost = await writeCost(ctx, redis, keys, (await team('cost', 0)).id, ctx.opts.quick ? 500 : 5_000);
    return {
      ...scale.ratioSummary(queries, ratios, 'daily_tz', `the same query at ${fmtInt(smallN)} emails`),
      ratios,
      queries,
      write_cost: cost,
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
    ...scale.ratioRows('metrics', (k) => `GET /emails/metrics ${k} p99 ms`, {
      pages: r.queries,
      ratios: r.ratios,
      sizes: r.setup,
    }),
    ...[
      ['Redis', 'redis_us'],
      ['client', 'client_us'],
    ].map(([who, k]) => ({
      phase: 'metrics',
      metric: `recording sent + delivered: ${who} µs per email, with the counters vs without`,
      petrel: `${r.write_cost.after[k]}`,
      baseline: `${r.write_cost.before[k]} (record script alone)`,
      ratio: round(r.write_cost.after[k] / r.write_cost.before[k], 2),
      target: '',
      met: null,
    })),
  ];
}
