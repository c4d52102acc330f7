// Phase — inboxes. Two measurements:
//
// 1. Thread list and search at scale: two inboxes of one team, filled through the store's own
//    write path (InboxesStore.addMessage: thread, message, Message-ID / subject / search-term
//    indexes and the events, one script per thread; then updateThread for read state and
//    setThreadLabels for labels, as the API would), IN_FLIGHT threads at a time with progress
//    lines: 1,000 and 100,000 threads (--quick: 100 and 5,000). Every thread has the same mix at
//    both sizes: 10 % archived, 90 % read, a label on 10 % and another on 1 %, one of ten topic
//    words in its subject (10 % each), a rare body word (1 %), one of 200 senders. Then GET
//    …/threads and …/threads/search through the API process, requests to the two inboxes
//    alternating (load from elsewhere hits both alike), p99 of 300 requests per query (--quick: 40).
//    Target: p99 at 100k ≤ 1.5 × p99 at 1k for every query.
// 2. Inbound → threaded: the inbound (MX) server receiving the same messages to an address with an
//    inbox (parsed, stored, then threaded and indexed into the inbox before the 250) against an
//    INBOUND_DOMAINS address without one (bench/lib/inbound-bench.mjs, the smtp phase's inbound
//    measurement), alternating on a fresh Redis; CPU per message of the SMTP process + Redis, and
//    messages/s. Target: CPU per message with an inbox ≤ 1.3 × without.
import { ApiKeysStore, InboxesStore, Keys, createRedis } from '@petrel/store';
import { createInbox, messageTerms, newId, subjectKey } from '@petrel/core';
import { INBOUND_BENCH_DOMAIN, inboundRun } from '../lib/inbound-bench.mjs';
import { PETREL_PREFIX, startPetrelApi } from '../lib/stacks.mjs';
import { fillProgress, measurePairs, p99Ratios, ratioRows, samplesOf, timedGet } from '../lib/scale.mjs';
import { fmtInt, median, round } from '../lib/util.mjs';
import { startPetrelSmtp } from './smtp.mjs';

export const name = 'inboxes';
export const order = 92;
export const title =
  'Inbox thread list and search p99 at 100k threads vs 1k; inbound → threaded CPU per message vs plain receive';

const DOMAIN = INBOUND_BENCH_DOMAIN;
const LIST_TARGET = 1.5;
const INBOUND_TARGET = 1.3;
const IN_FLIGHT = 32;
const WARMUP = 20;
const SENDERS = 200;
const TOPICS = [
  'refund',
  'shipping',
  'invoice',
  'warranty',
  'delivery',
  'password',
  'upgrade',
  'billing',
  'return',
  'account',
];

/** The receiving domain of the bench's Petrel, for createInbox's rule. */
const receiving = { of: async () => [{ domain: DOMAIN, domainId: '' }] };

async function newInbox(store, teamId, address) {
  return createInbox(
    { teamId, input: { email_address: address, name: address.split('@')[0] } },
    { inboxes: store, receiving, clock: Date, ids: { newId: () => newId() } },
  );
}

/** Thread i's one message, as fileReceivedEmail builds it from a received email. */
function threadMessage(inbox, i, ms) {
  const from = `customer${i % SENDERS}@customer.example`;
  const subject = `Order ${i}: ${TOPICS[i % TOPICS.length]} question`;
  const text = `Hello, about order ${i}.${i % 100 === 7 ? ' The hinge snapped.' : ''} Thanks, customer ${i % SENDERS}`;
  const id = newId(ms);
  const header = `order-${i}@customer.example`;
  const receivedAt = new Date(ms).toISOString();
  return {
    message: {
      id,
      direction: 'inbound',
      from,
      to: [inbox.email_address],
      cc: [],
      bcc: [],
      reply_to: [],
      subject,
      message_id: header,
      references: [],
      attachments: [],
      read: false,
      received_at: receivedAt,
    },
    messageId: header,
    subjectKeys: [subjectKey(subject, from)],
    terms: messageTerms({
      subject,
      text,
      html: null,
      from,
      to: [inbox.email_address],
      cc: [],
      bcc: [],
      hasAttachment: false,
    }),
    threadId: null,
    newThreadId: newId(ms),
    folder: i % 10 === 0 ? 'archive' : 'inbox',
    source: 'system',
  };
}

/** Fills an inbox with n threads (message times 1 ms apart, ending now), IN_FLIGHT at a time. */
async function fill(ctx, store, teamId, inbox, n, labels) {
  const t0 = Date.now() - n;
  let next = 0;
  const progress = fillProgress(ctx, n, 'threads');
  const lane = async () => {
    for (;;) {
      const i = next++;
      if (i >= n) return;
      const { thread } = await store.addMessage(teamId, inbox, threadMessage(inbox, i, t0 + i));
      if (i % 10 !== 1) await store.updateThread(teamId, inbox.id, thread.id, { read: true }, 'system');
      const l = [...(i % 10 === 2 ? [labels.common] : []), ...(i % 100 === 3 ? [labels.rare] : [])];
      if (l.length) await store.setThreadLabels(teamId, inbox.id, thread.id, l, 'system');
      progress.tick(i);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  return progress.seconds();
}

/** The queries of one inbox (a cursor from its own listing); each must answer at least one thread. */
async function queries(api, box) {
  const base = `/inboxes/${box.inbox.id}/threads`;
  const all = JSON.parse((await timedGet(api, `${base}?limit=100`, api.headers)).text).data;
  const middle = all[50].id;
  return {
    first: `${base}?limit=20`,
    folder: `${base}?limit=20&folders=archive`,
    next: `${base}?limit=20&after=${middle}`,
    unread: `${base}?limit=20&read=false`,
    label: `${base}?limit=20&labels=${box.labels.common}`,
    label_1pct: `${base}?limit=20&labels=${box.labels.rare}`,
    search_word: `${base}/search?limit=20&query=refund`,
    search_1pct: `${base}/search?limit=20&query=hinge`,
    search_two: `${base}/search?limit=20&query=order%20shipping`,
    search_from: `${base}/search?limit=20&from=customer7%40customer.example`,
  };
}

async function measureLists(ctx, api, small, large, samples) {
  const side = async (box) => ({ n: box.n, headers: api.headers, queries: await queries(api, box) });
  const sides = { small: await side(small), large: await side(large) };
  const check = (k, a, b) => {
    if (JSON.parse(a).data.length === 0 || JSON.parse(b).data.length === 0)
      throw new Error(`${k}: no thread answered (${sides.small.queries[k]})`);
  };
  return measurePairs(ctx, api, sides, { warmup: WARMUP, samples, unit: 'threads', pad: 12, check });
}

async function listsAndSearch(ctx) {
  const quick = ctx.opts.quick;
  const smallN = quick ? 100 : 1_000;
  const largeN = quick ? 5_000 : 100_000;
  const samples = samplesOf(ctx);
  await ctx.redis.reset();
  const api = await startPetrelApi(ctx, { INBOUND_DOMAINS: DOMAIN });
  const redis = createRedis(ctx.redis.url);
  try {
    const keys = new Keys(PETREL_PREFIX);
    const teamId = await new ApiKeysStore(redis, keys).ensureDefaultTeam();
    const store = new InboxesStore(redis, keys);
    const box = async (n) => {
      const inbox = await newInbox(store, teamId, `threads-${n}@${DOMAIN}`);
      const label = async (name) => {
        const id = newId();
        await store.createLabel(teamId, inbox.id, {
          id,
          name,
          color: '#1D4ED8',
          created_at: new Date().toISOString(),
        });
        return id;
      };
      return { inbox, n, labels: { common: await label('billing'), rare: await label('vip') } };
    };
    const small = await box(smallN);
    const large = await box(largeN);
    const fillS = {};
    for (const b of [small, large]) {
      ctx.progress(`  filling an inbox with ${fmtInt(b.n)} threads`);
      fillS[b.n] = await fill(ctx, store, teamId, b.inbox, b.n, b.labels);
      ctx.progress(`  ${fmtInt(b.n)} threads in ${fillS[b.n]} s (${fmtInt(b.n / fillS[b.n])} threads/s)`);
    }
    const pages = await measureLists(ctx, api, small, large, samples);
    const ratios = p99Ratios(ctx, pages, { smallN, largeN, target: LIST_TARGET });
    return { pages, ratios, setup: { small: smallN, large: largeN, samples, fill_s: fillS } };
  } finally {
    await redis.quit().catch(() => undefined);
    await api.stop();
    await ctx.redis.reset();
  }
}

/** Inbound to a plain address and to an inbox's, alternating; medians of the reps. */
async function inbound(ctx) {
  const quick = ctx.opts.quick;
  const o = { n: quick ? 200 : 2_000, warmup: quick ? 20 : 200, reps: quick ? 1 : ctx.opts.reps };
  const address = `desk@${DOMAIN}`;
  const cpuPerMessage = (r) => round(r.cpu_ms_per_message.server + r.cpu_ms_per_message.redis, 3);
  const runs = { plain: [], inbox: [] };
  const keys = new Keys(PETREL_PREFIX);
  const redis = createRedis(ctx.redis.url);
  try {
    for (let rep = 0; rep < o.reps; rep++) {
      for (const kind of ['plain', 'inbox']) {
        let threads;
        // with an inbox: created once the SMTP process is up (on the run's fresh Redis)
        const prepare = async () => {
          const teamId = await new ApiKeysStore(redis, keys).ensureDefaultTeam();
          const inbox = await newInbox(new InboxesStore(redis, keys), teamId, address);
          threads = keys.inboxPart(teamId, inbox.id, 'threads');
        };
        const r = await inboundRun(
          ctx,
          startPetrelSmtp,
          o,
          kind === 'inbox' ? { to: address, prepare } : { to: address },
        );
        if (threads) {
          // every message starts its own thread (new sender, new subject): all of them are filed
          const filed = await redis.zcard(threads);
          if (filed !== o.warmup + o.n) throw new Error(`${filed} threads filed, ${o.warmup + o.n} received`);
        }
        runs[kind].push({ ...r, cpu_ms_per_message_total: cpuPerMessage(r) });
        ctx.progress(
          `  inbound ${kind.padEnd(5)}: ${fmtInt(r.messages_per_s)} messages/s; cpu/message: server ${r.cpu_ms_per_message.server} ms, ` +
            `redis ${r.cpu_ms_per_message.redis} ms`,
        );
      }
    }
  } finally {
    await redis.quit().catch(() => undefined);
  }
  const med = (kind, f) => median(runs[kind].map(f));
  const result = {
    setup: o,
    plain: {
      messages_per_s: med('plain', (r) => r.messages_per_s),
      cpu_ms_per_message: med('plain', (r) => r.cpu_ms_per_message_total),
      server_ms: med('plain', (r) => r.cpu_ms_per_message.server),
      redis_ms: med('plain', (r) => r.cpu_ms_per_message.redis),
    },
    inbox: {
      messages_per_s: med('inbox', (r) => r.messages_per_s),
      cpu_ms_per_message: med('inbox', (r) => r.cpu_ms_per_message_total),
      server_ms: med('inbox', (r) => r.cpu_ms_per_message.server),
      redis_ms: med('inbox', (r) => r.cpu_ms_per_message.redis),
    },
    runs,
  };
  result.cpu_ratio = round(result.inbox.cpu_ms_per_message / result.plain.cpu_ms_per_message, 2);
  result.rate_ratio = round(result.inbox.messages_per_s / result.plain.messages_per_s, 2);
  ctx.progress(
    `  inbound → threaded: cpu/message ${result.inbox.cpu_ms_per_message} vs ${result.plain.cpu_ms_per_message} ms ` +
      `(${result.cpu_ratio}×, target ≤ ${INBOUND_TARGET}×); messages/s ${result.rate_ratio}× of plain`,
  );
  return result;
}

export async function run(ctx) {
  const lists = await listsAndSearch(ctx);
  const received = await inbound(ctx);
  const worst = Math.max(...Object.values(lists.ratios));
  return {
    petrel: lists.pages.large.first.p99,
    baseline: lists.pages.small.first.p99,
    baseline_is: `the same query at ${fmtInt(lists.setup.small)} threads`,
    ratio: lists.ratios.first,
    unit: 'ms p99',
    target: { list_ratio_max: LIST_TARGET, inbound_cpu_ratio_max: INBOUND_TARGET },
    met: worst <= LIST_TARGET && received.cpu_ratio <= INBOUND_TARGET,
    lists,
    inbound: received,
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  const { lists, inbound: ib } = r;
  return [
    ...ratioRows('inboxes', (k) => `GET …/threads${k.startsWith('search') ? '/search' : ''} ${k} p99 ms`, {
      pages: lists.pages,
      ratios: lists.ratios,
      sizes: lists.setup,
      unit: 'threads',
      target: LIST_TARGET,
    }),
    {
      phase: 'inboxes',
      metric: `inbound → threaded: CPU ms per message (SMTP + Redis), ${fmtInt(ib.setup.n)} messages; messages/s ${fmtInt(ib.inbox.messages_per_s)} vs ${fmtInt(ib.plain.messages_per_s)}`,
      petrel: `${ib.inbox.cpu_ms_per_message}`,
      baseline: `${ib.plain.cpu_ms_per_message} (no inbox)`,
      ratio: ib.cpu_ratio,
      target: `≤ ${INBOUND_TARGET.toFixed(1)}×`,
      met: ib.cpu_ratio <= INBOUND_TARGET,
    },
  ];
}
