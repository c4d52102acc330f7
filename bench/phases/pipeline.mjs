// Phase — pipeline: do the events keep up with the mail? N emails accepted through the API
// (no worker running), then worker processes drain them into the sink while dispatcher
// processes (apps/webhooks/dist/main.js) deliver their `email.sent` and `email.delivered`
// events to one endpoint — created with `POST /webhooks`, a receiver in the bench process
// answering 200. Reported per dispatcher count: delivered emails/s (sink, first to last 250),
// received events/s (first to last arrival), and the lag from the last 250 to the last event;
// every event must arrive exactly once per (event, endpoint) with a valid Standard Webhooks
// signature (checked with the `standardwebhooks` package after the run, so verifying costs the
// receiver nothing while it is measured). Target: lag ≤ 10 % of the delivery's duration.
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { cpuDelta, cpuSnapshot } from '../lib/cpu.mjs';
import { postBatches } from '../lib/load.mjs';
import { ROOT, startPetrelApi, startPetrelProcess, startPetrelWorkers } from '../lib/stacks.mjs';
import { fmtInt, httpJson, now, round, startHttpReceiver, waitUntil } from '../lib/util.mjs';
import { deliveryEmail } from './delivery.mjs';

export const name = 'pipeline';
export const order = 96;
export const title =
  'Pipeline: emails through API → workers → sink with email.sent/delivered webhooks; event lag behind the last 250';

const SIZES = { full: 20_000, quick: 500 };
/** Dispatcher processes per worker process, measured in turn. */
const DISPATCHERS = [1, 2];
const WORKERS = 1;
const LAG_TARGET = 0.1;
const EVENTS = ['email.sent', 'email.delivered'];
const DISPATCHER_MAIN = join(ROOT, 'apps/webhooks/dist/main.js');

/**
 * The webhook receiver: keeps every request (its Standard Webhooks headers, body and arrival
 * time) and answers `respond(req)`'s status (200 unless told). Verification is left to `check`.
 */
export async function startWebhookReceiver(respond = () => 200) {
  const requests = [];
  const ids = new Set();
  const receiver = await startHttpReceiver((req, body) => {
    const r = {
      at: Date.now(),
      id: req.headers['webhook-id'],
      timestamp: req.headers['webhook-timestamp'],
      signature: req.headers['webhook-signature'],
      body,
    };
    const status = respond(r);
    if (status >= 200 && status < 300) {
      requests.push(r);
      ids.add(r.id);
    }
    return status;
  });
  return {
    ...receiver,
    requests,
    /** Distinct message ids answered 2xx. */
    distinct: () => ids.size,
  };
}

/**
 * Verifies every 2xx-answered request with `standardwebhooks` and counts them per message id
 * and per (type, email id): { received, bad_signatures, duplicate_ids, per_email: Map of email
 * id → { [type]: count }, arrivals: Map of email id → { [type]: first arrival ms }, bounces: Map
 * of email id → bounce type }.
 */
export function checkWebhooks(requests, secret) {
  const wh = new Webhook(secret);
  const perId = new Map();
  const perEmail = new Map(); // email id → { [type]: count }
  const arrivals = new Map();
  const bounces = new Map();
  let bad = 0;
  // Each request is verified as the receiver would have at its arrival: `verify` also refuses a
  // timestamp more than 5 minutes from its clock (Standard Webhooks' replay tolerance), and a
  // long run checked after its end would count every early arrival as a bad signature. `verify`
  // is synchronous and reads the clock through Date.now, so the clock is the arrival's for that
  // one call.
  const clock = Date.now;
  for (const r of requests) {
    let payload;
    try {
      Date.now = () => r.at;
      payload = wh.verify(r.body, {
        'webhook-id': r.id,
        'webhook-timestamp': r.timestamp,
        'webhook-signature': r.signature,
      });
    } catch {
      bad++;
      continue;
    } finally {
      Date.now = clock;
    }
    perId.set(r.id, (perId.get(r.id) ?? 0) + 1);
    const emailId = payload.data?.email_id;
    const counts = perEmail.get(emailId) ?? {};
    counts[payload.type] = (counts[payload.type] ?? 0) + 1;
    perEmail.set(emailId, counts);
    const at = arrivals.get(emailId) ?? {};
    at[payload.type] = Math.min(at[payload.type] ?? Infinity, r.at);
    arrivals.set(emailId, at);
    if (payload.data?.bounce) bounces.set(emailId, payload.data.bounce.type);
  }
  let dupIds = 0;
  for (const c of perId.values()) dupIds += c - 1;
  return {
    received: requests.length,
    bad_signatures: bad,
    duplicate_ids: dupIds,
    per_email: perEmail,
    arrivals,
    bounces,
  };
}

/** Creates the endpoint through the API (the Resend `POST /webhooks`); returns { id, secret }. */
export async function createEndpoint(api, url, events) {
  const res = await httpJson('POST', `${api.url}/webhooks`, {
    body: { endpoint: url, events },
    headers: api.headers,
  });
  if (res.status !== 201) throw new Error(`POST /webhooks → ${res.status}: ${res.text.slice(0, 300)}`);
  return { id: res.body.id, secret: res.body.signing_secret };
}

/** `count` dispatcher processes on the bench's Redis. */
export async function startDispatchers(ctx, count, env = {}) {
  const children = [];
  for (let i = 0; i < count; i++) {
    const { child } = await startPetrelProcess(ctx, {
      name: `petrel-webhooks${i + 1}`,
      main: DISPATCHER_MAIN,
      what: 'Petrel webhook dispatcher',
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', ...env },
    });
    children.push(child);
  }
  return { children, stop: () => Promise.all(children.map((c) => c.stop(15_000))) };
}

async function oneRun(ctx, n, dispatchers) {
  await ctx.redis.reset();
  await ctx.sink.reset();
  const receiver = await startWebhookReceiver();
  const api = await startPetrelApi(ctx, { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  let endpoint;
  let emailIds;
  try {
    endpoint = await createEndpoint(api, receiver.url, EVENTS);
    await postBatches(api, { n, emailAt: deliveryEmail });
  } finally {
    await api.stop();
  }
  const disp = await startDispatchers(ctx, dispatchers);
  const workers = await startPetrelWorkers(ctx, WORKERS);
  const procs = { sink: ctx.sink.pid };
  workers.workers.forEach((w) => (procs[w.name] = w.child.pid));
  disp.children.forEach((c, i) => (procs[`dispatcher${i + 1}`] = c.pid));
  const a = await cpuSnapshot(procs, ctx.redis.client);
  try {
    await ctx.sink.waitFor(n, { watch: [...workers.children, ...disp.children], stallMs: 60_000 });
    const expected = n * EVENTS.length;
    let last = -1;
    let lastChange = now();
    await waitUntil(
      () => {
        for (const c of disp.children) c.assertAlive();
        const got = receiver.distinct();
        if (got !== last) [last, lastChange] = [got, now()];
        else if (now() - lastChange > 60_000)
          throw new Error(`events stalled at ${got}/${expected} for 60 s`);
        return got >= expected;
      },
      { what: `${expected} events`, timeoutMs: 1_200_000, intervalMs: 20 },
    );
    const b = await cpuSnapshot(procs, ctx.redis.client);
    const sum = await ctx.sink.summary();
    const times = receiver.requests.map((r) => r.at);
    const firstEvent = Math.min(...times);
    const lastEvent = Math.max(...times);
    const deliveryS = (sum.last - sum.first) / 1000;
    const lagS = (lastEvent - sum.last) / 1000;
    const check = checkWebhooks(receiver.requests, endpoint.secret);
    emailIds = check.per_email;
    let exactlyOnce = 0;
    for (const counts of emailIds.values())
      if (EVENTS.every((t) => counts[t] === 1) && Object.keys(counts).length === EVENTS.length) exactlyOnce++;
    const cpu = cpuDelta(a, b);
    const dispCpu = disp.children.reduce((s, _c, i) => s + (cpu[`dispatcher${i + 1}`] ?? 0), 0);
    const eventsS = Math.max(0.001, (lastEvent - firstEvent) / 1000);
    const secs = (b.t - a.t) / 1000;
    return {
      n,
      workers: WORKERS,
      dispatchers,
      delivered_per_s: round(sum.rate, 0),
      delivery_s: round(deliveryS, 2),
      events: check.received,
      events_per_s: round(check.received / eventsS, 0),
      lag_s: round(lagS, 2),
      lag_ratio: round(lagS / Math.max(0.001, deliveryS), 3),
      met: lagS / Math.max(0.001, deliveryS) <= LAG_TARGET && exactlyOnce === n && check.bad_signatures === 0,
      emails_with_each_event_once: exactlyOnce,
      bad_signatures: check.bad_signatures,
      duplicate_ids: check.duplicate_ids,
      sink_duplicates: (await ctx.sink.stats()).dup,
      cpu,
      dispatcher_us_per_event: round(((dispCpu / 100) * secs * 1e6) / check.received, 1),
    };
  } finally {
    await workers.stop();
    await disp.stop();
    await receiver.stop();
  }
}

export async function run(ctx) {
  const n = ctx.opts.quick ? SIZES.quick : Math.max(SIZES.quick, ctx.opts.n ?? SIZES.full);
  const runs = [];
  for (const d of DISPATCHERS) {
    const r = await oneRun(ctx, n, d);
    ctx.progress(
      `  ${WORKERS} worker, ${d} dispatcher${d > 1 ? 's' : ''}: ${fmtInt(r.delivered_per_s)} emails/s delivered in ${r.delivery_s} s, ` +
        `${fmtInt(r.events_per_s)} events/s, last event ${r.lag_s} s after the last 250 (${round(r.lag_ratio * 100, 1)} % of the delivery); ` +
        `${fmtInt(r.emails_with_each_event_once)}/${fmtInt(n)} emails with each event once, ${r.duplicate_ids} duplicate ids, ${r.bad_signatures} bad signatures; ` +
        `dispatchers ${r.dispatcher_us_per_event} µs/event`,
    );
    runs.push(r);
  }
  await ctx.redis.reset();
  const recommended = runs.find((r) => r.met)?.dispatchers ?? null;
  return { target: { lag_ratio_max: LAG_TARGET }, recommended_dispatchers_per_worker: recommended, runs };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  return r.runs.map((x) => ({
    phase: 'pipeline',
    metric: `${fmtInt(x.n)} emails, ${x.workers} worker + ${x.dispatchers} dispatcher process(es): delivered emails/s; events/s; last 250 → last event (dispatchers ${x.dispatcher_us_per_event} µs/event)`,
    petrel: `${fmtInt(x.delivered_per_s)}; ${fmtInt(x.events_per_s)}; ${x.lag_s} s = ${round(x.lag_ratio * 100, 1)} % of ${x.delivery_s} s`,
    baseline: `${fmtInt(x.emails_with_each_event_once)}/${fmtInt(x.n)} emails with each event once, ${x.duplicate_ids} dup ids, ${x.bad_signatures} bad sigs`,
    ratio: null,
    target: `lag ≤ ${LAG_TARGET * 100} % of the delivery, each event once, signed`,
    met: x.met,
  }));
}
