#!/usr/bin/env node
// What each part of acceptance costs, per email: API-process CPU (this process, process.cpuUsage)
// and Redis CPU (INFO cpu of the bench's own redis-server) around each step of acceptEmails, one
// 100-email request at a time (the ingest phase's bodies, an Idempotency-Key on every other
// request), so nothing else runs while a step is measured. The wiring is the API's
// (redisAcceptancePorts over the stores and the send queues, core's acceptance stages) built
// from the packages' dist (run `npm run build` first).
//   node bench/ingest-stages.mjs [--requests 300] [--passes full,no-search,stages] [--commandstats]
// --passes picks the passes to run (default: all); --commandstats prints, after each pass, Redis's
// INFO commandstats per email (calls and µs; commands run inside a script count both on their
// own and in the script's EVALSHA; the µs are wall-clock, so a busy machine inflates them: the
// CPU figures are the ones to compare).
// Passes, each on an emptied Redis:
//   full           every step, as POST /emails/batch runs them
//   no-search      the same with the search indexes not written (their cost: full - no-search)
//   stages k       prepare with the first k acceptance stages only (each stage's marginal cost)
//   index-terms    EmailSearch.index alone on records made beforehand (Redis CPU per email), the
//                  bench emails' terms by kind: status only, + the words all 100 share (one
//                  group posting per request), + each email's own recipient, + its own order
//                  number word (each of the last two a new sorted set per email)
// The sending-domain stage is not in these passes (it needs a verified domain's records).
import { randomUUID } from 'node:crypto';
import {
  acceptEmails,
  emailSearchTerms,
  capRecipients,
  checkTopic,
  dailyQuota,
  fetchAttachments,
  prepareWith,
  resolveTemplate,
} from '@petrel/core';
import {
  EmailsStore,
  IdempotencyStore,
  Keys,
  OutboxStore,
  RateLimitStore,
  TemplatesStore,
  TopicsStore,
  createRedis,
  dailyQuotaCounter,
  redisAcceptancePorts,
} from '@petrel/store';
import { SendQueues } from '@petrel/queue';
import { ingestBodies } from './phases/ingest.mjs';
import { startRedis } from './lib/redis.mjs';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const REQUESTS = Number(option('--requests') || 300);
const PASSES = new Set((option('--passes') ?? 'full,no-search,stages').split(','));
const COMMANDSTATS = args.includes('--commandstats');
const PER_REQUEST = 100;
const DAY = 86_400_000;

const redis = await startRedis();
const client = createRedis(redis.url, 'command', 'ingest-stages');
const keys = new Keys('pt');
const teamId = 'team-bench';

async function redisCpu() {
  const info = await redis.client.info('cpu');
  const num = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)[1]);
  return num('used_cpu_user') + num('used_cpu_sys');
}

/** Accumulated µs of API and Redis CPU per step name. */
const spent = new Map();
let infoCost = 0;
async function timed(name, fn) {
  const r0 = await redisCpu();
  const c0 = process.cpuUsage();
  const out = await fn();
  const c = process.cpuUsage(c0);
  const r1 = await redisCpu();
  const s = spent.get(name) ?? { api: 0, redis: 0 };
  s.api += c.user + c.system;
  s.redis += (r1 - r0) * 1e6 - infoCost;
  spent.set(name, s);
  return out;
}

function wrap(obj, method, name) {
  const fn = obj[method].bind(obj);
  obj[method] = (...a) => timed(name, () => fn(...a));
}

const attachments = {
  fetch: () => Promise.reject(new Error('no remote attachments in the bench')),
};

function build({ search = true, stages = 4 } = {}) {
  const emails = new EmailsStore(client, keys, DAY, { statsRetentionMs: DAY });
  if (!search) emails.search.queueIndex = () => undefined;
  const idempotency = new IdempotencyStore(client, keys);
  const outbox = new OutboxStore(client, keys, idempotency);
  const queues = new SendQueues(client, { prefix: keys.bullPrefix() });
  const all = [
    capRecipients(undefined),
    checkTopic(new TopicsStore(client, keys)),
    resolveTemplate(new TemplatesStore(client, keys, DAY)),
    fetchAttachments(attachments),
    dailyQuota({
      counter: dailyQuotaCounter(new RateLimitStore(client, keys)),
      defaultQuota: 1e9,
      onRefused: () => undefined,
    }),
  ];
  const preparer = prepareWith(all.slice(0, stages));
  wrap(emails, 'stage', 'commit 1: records + outbox + watchdog + search (EmailsStore.stage)');
  wrap(queues, 'enqueue', 'commit 2: BullMQ addBulk (SendQueues.enqueue)');
  wrap(outbox, 'clear', 'commit 3: outbox clear + idempotency completion (OutboxStore.clear)');
  const ports = redisAcceptancePorts({ emails, idempotency, outbox, queues, preparer });
  const fp = ports.fingerprint;
  ports.fingerprint = (...a) => {
    const c0 = process.cpuUsage();
    const out = fp(...a);
    const c = process.cpuUsage(c0);
    const s = spent.get('idempotency fingerprint') ?? { api: 0, redis: 0 };
    s.api += c.user + c.system;
    spent.set('idempotency fingerprint', s);
    return out;
  };
  wrap(ports, 'claim', 'idempotency claim');
  wrap(ports, 'prepare', `prepare (${stages} stages)`);
  return { ports, queues };
}

async function pass(label, opts) {
  await redis.reset();
  spent.clear();
  const { ports, queues } = build(opts);
  await queues.ready();
  const bodies = ingestBodies();
  // warm-up: JIT and script loading
  for (let i = 0; i < 30; i++) await once(ports, bodies[i % bodies.length], i);
  spent.clear();
  if (COMMANDSTATS) await redis.resetStats();
  const r0 = await redisCpu();
  const c0 = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) await once(ports, bodies[i % bodies.length], i);
  const c = process.cpuUsage(c0);
  const total = { api: c.user + c.system, redis: ((await redisCpu()) - r0) * 1e6 };
  const n = REQUESTS * PER_REQUEST;
  const rows = [...spent].map(([k, v]) => [k, v.api / n, v.redis / n]);
  rows.push(['total (every step, with the measuring itself)', total.api / n, total.redis / n]);
  console.log(`\n## ${label}`);
  for (const [k, a, r] of rows) console.log(`${a.toFixed(1).padStart(7)} ${r.toFixed(1).padStart(7)}  ${k}`);
  if (COMMANDSTATS) {
    console.log('  Redis commandstats per email: calls  µs  command');
    for (const c of await redis.commandStats(20))
      if (c.cmd !== 'info')
        console.log(
          `${(c.calls / n).toFixed(2).padStart(9)} ${(c.usec / n).toFixed(2).padStart(6)}  ${c.cmd}`,
        );
  }
  return Object.fromEntries(rows.map(([k, a, r]) => [k, { api: a, redis: r }]));
}

async function once(ports, body, i) {
  await timed('parse (JSON.parse of the body)', async () => JSON.parse(body));
  const parsed = JSON.parse(body);
  const res = await timed('acceptEmails (all of it)', () =>
    acceptEmails(
      {
        teamId,
        endpoint: 'batch',
        body: parsed,
        mode: 'strict',
        idempotencyKey: i % 2 === 0 ? randomUUID() : undefined,
        now: new Date(),
        clock: Date,
      },
      ports,
    ),
  );
  if (res.status !== 200) throw new Error(`refused: ${res.body}`);
}

// the measuring's own Redis cost (two INFO calls per step)
{
  const a = await redisCpu();
  for (let i = 0; i < 200; i++) await redisCpu();
  infoCost = (((await redisCpu()) - a) * 1e6) / 100;
}
console.log(`µs per email: API (this process)   Redis   step   (${REQUESTS} requests of ${PER_REQUEST})`);
if (PASSES.has('full')) await pass('full', {});
if (PASSES.has('no-search')) await pass('no search indexes', { search: false });
if (PASSES.has('stages')) for (let k = 0; k <= 5; k++) await pass(`stages ${k}`, { stages: k });
if (PASSES.has('index-terms')) await indexTerms();

async function indexTerms() {
  const emails = new EmailsStore(client, keys, DAY, { statsRetentionMs: DAY });
  const kinds = {
    'status only': () => false,
    '+ shared words': (t) => t.startsWith('subject:') && !/\d/.test(t),
    '+ own recipient': (t) => t.startsWith('to:') || !/\d/.test(t),
    '+ own number word (all the terms)': () => true,
  };
  console.log('\n## index-terms (EmailSearch.index alone)');
  for (const [label, keep] of Object.entries(kinds)) {
    await redis.reset();
    let seq = 0;
    let spentRedis = 0;
    const request = async () => {
      const now = Date.now();
      const batch = client.pipeline();
      const entries = [];
      for (let k = 0; k < PER_REQUEST; k++, seq++) {
        const id = `e${seq}`;
        batch.hset(keys.email(teamId, id), 'id', id, 'created_ms', now, 'status_rank', 0);
        batch.zadd(keys.emails(teamId), now, id);
        const subject = `Your order #${100_000 + seq} is confirmed`;
        const all = emailSearchTerms({ to: [`user${seq}@rcpt.example`], cc: [], bcc: [], tags: [], subject });
        entries.push({ id, terms: all.filter(keep), status: 'queued' });
      }
      await batch.exec();
      const r0 = await redisCpu();
      await emails.search.index(teamId, entries, now);
      return ((await redisCpu()) - r0) * 1e6 - infoCost;
    };
    for (let i = 0; i < 30; i++) await request();
    for (let i = 0; i < REQUESTS; i++) spentRedis += await request();
    console.log(`   -    ${(spentRedis / (REQUESTS * PER_REQUEST)).toFixed(1).padStart(7)}  ${label}`);
  }
}
await client.quit();
await redis.client.quit();
redis.child.kill();
