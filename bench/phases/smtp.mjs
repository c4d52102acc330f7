// Phase — SMTP: the same emails submitted over SMTP and through POST /emails, in the same run, on
// the same Redis, alternating. Submission: `apps/smtp/dist/main.js` (STARTTLS, AUTH PLAIN with
// the bench's API key), fed by two clients in turn, CONNECTIONS connections each: a pooled,
// authenticated nodemailer (one message in flight per connection) and an RFC 2920 pipelining
// client (lib/smtp-pipelining-client.mjs); each message is parsed (MIME), mapped and accepted
// through the same use-case as POST /emails. HTTP: `apps/api/dist/main.js`, the same emails as
// single POST /emails requests over CONNECTIONS keep-alive connections. No worker runs: both
// sides are measured to the acceptance (record + job), which is what the client waits for.
// Reported: accepted messages/s of each (median of the reps), the ratio SMTP / HTTP (target
// ≥ 0.7×, held by the RFC 2920 client), server CPU per message (the accepting process — the SMTP
// server or the API, shown as `api` in the CPU cells — and Redis) and its ratio SMTP / API, and
// the server's final dot → 250 time (petrel_smtp_submission_reply_seconds over the window).
//
// Extensible: `SMTP_MEASUREMENTS` lists what the phase measures; another SMTP measurement (e.g.
// inbound messages/s parsed and stored) adds an entry and its row.
import { createTransport } from 'nodemailer';
import { join } from 'node:path';
import { cpuDelta, cpuSnapshot } from '../lib/cpu.mjs';
import { email } from '../lib/payload.mjs';
import { API_KEY, ROOT, profileArgs, startPetrelApi, startPetrelProcess } from '../lib/stacks.mjs';
import { fmtInt, freePort, httpJson, httpText, mapLimit, median, now, ratio, round } from '../lib/util.mjs';
import { inboundMeasurement } from '../lib/inbound-bench.mjs';
import { composeAll, pipeliningClient } from '../lib/smtp-pipelining-client.mjs';

export const name = 'smtp';
export const order = 90;
export const title =
  'SMTP submission: messages/s over SMTP (pooled, authenticated) vs the same through POST /emails';

const SMTP_MAIN = join(ROOT, 'apps/smtp/dist/main.js');
const TARGET = 0.7;
const CONNECTIONS = 10;

/** The SMTP process alone (submission port only), its /ready answered. */
export async function startPetrelSmtp(ctx, env = {}, nodeArgs = profileArgs(ctx, 'smtp')) {
  const port = await freePort();
  const { child, metricsPort } = await startPetrelProcess(ctx, {
    name: 'petrel-smtp',
    main: SMTP_MAIN,
    what: 'Petrel SMTP',
    nodeArgs,
    env: {
      SMTP_SUBMISSION_PORT: String(port),
      SMTP_SUBMISSION_TLS_PORT: 'off',
      SMTP_INBOUND_PORT: 'off',
      ...env,
    },
  });
  return { child, port, metricsPort, stop: () => child.stop() };
}

/** The SMTP process's petrel_smtp_submission_reply_seconds (2xx): cumulative buckets, sum, count. */
async function replyHistogram(smtp) {
  const text = await httpText(`http://127.0.0.1:${smtp.metricsPort}/metrics`);
  const buckets = [];
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('petrel_smtp_submission_reply_seconds') || !line.includes('reply="2xx"')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le !== undefined) buckets.push({ le: Number(le), n: value });
    else if (line.startsWith('petrel_smtp_submission_reply_seconds_sum')) sum = value;
    else if (line.startsWith('petrel_smtp_submission_reply_seconds_count')) count = value;
  }
  return { buckets, sum, count };
}

/**
 * Final dot → 250 on the server over a window (`a` and `b` read before and after it): the mean,
 * and the bucket bounds under which half and 99 % of the replies went (ms).
 */
function replyLatency(a, b) {
  const count = b.count - a.count;
  if (count <= 0) return null;
  const bound = (q) => {
    const i = b.buckets.findIndex((x, k) => x.n - a.buckets[k].n >= q * count);
    return i === -1 ? null : b.buckets[i].le * 1000;
  };
  return {
    replies: count,
    mean_ms: round(((b.sum - a.sum) / count) * 1000, 2),
    p50_le_ms: bound(0.5),
    p99_le_ms: bound(0.99),
  };
}

const latencyText = (l) =>
  l
    ? `; final dot → 250 on the server: mean ${l.mean_ms} ms, p50 ≤ ${l.p50_le_ms} ms, p99 ≤ ${l.p99_le_ms} ms`
    : '';

/** Sends emails [start, start + n) through `send` with CONNECTIONS in flight; msgs/s and CPU per message. */
async function timed(ctx, procs, n, start, send) {
  return timedRun(ctx, procs, n, () =>
    mapLimit(n, CONNECTIONS, (i) => send(email(start + i, 'standard', 's'))),
  );
}

/** Runs `drive()` (which submits `n` messages) in a measured window: msgs/s and CPU per message. */
async function timedRun(ctx, procs, n, drive) {
  const a = await cpuSnapshot(procs, ctx.redis.client);
  const t0 = now();
  await drive();
  const secs = (now() - t0) / 1000;
  const b = await cpuSnapshot(procs, ctx.redis.client);
  const cpu = cpuDelta(a, b);
  // % of one core over the window → ms of CPU per message
  const perMessageMs = (pct) =>
    pct === null || pct === undefined ? null : round(((pct / 100) * secs * 1000) / n, 3);
  return {
    messages: n,
    seconds: round(secs, 2),
    messages_per_s: round(n / secs, 0),
    cpu,
    cpu_ms_per_message: { server: perMessageMs(cpu.api), redis: perMessageMs(cpu.redis) },
  };
}

async function overSmtp(ctx, api, o, rep) {
  const smtp = await startPetrelSmtp(ctx);
  const transport = createTransport({
    host: '127.0.0.1',
    port: smtp.port,
    pool: true,
    maxConnections: CONNECTIONS,
    maxMessages: Infinity,
    requireTLS: true,
    auth: { user: 'resend', pass: API_KEY },
    tls: { rejectUnauthorized: false },
  });
  const send = async (m) => {
    const info = await transport.sendMail(m);
    if (!/^250 /.test(info.response)) throw new Error(`SMTP submission refused: ${info.response}`);
  };
  try {
    await mapLimit(o.warmup, CONNECTIONS, (i) => send(email(i, 'standard', 'w')));
    const before = await replyHistogram(smtp);
    const r = await timed(ctx, { api: smtp.child.pid }, o.n, rep * o.n, send);
    return { ...r, reply_latency: replyLatency(before, await replyHistogram(smtp)) };
  } finally {
    transport.close();
    await smtp.stop();
  }
}

/**
 * The same messages from a client that pipelines content with the next envelope (RFC 2920;
 * lib/smtp-pipelining-client.mjs): one round trip per message instead of nodemailer's two.
 */
async function overSmtpPipelined(ctx, api, o, rep) {
  const smtp = await startPetrelSmtp(ctx);
  const mails = (start, n, tag) => Array.from({ length: n }, (_, i) => email(start + i, 'standard', tag));
  const [warm, measured] = [
    await composeAll(mails(0, o.warmup, 'w')),
    await composeAll(mails(rep * o.n, o.n, 's')),
  ];
  const client = await pipeliningClient({
    port: smtp.port,
    user: 'resend',
    pass: API_KEY,
    connections: CONNECTIONS,
  });
  const check = (reply) => {
    if (!/^250 (\d\.\d\.\d )?OK \S/.test(reply.text))
      throw new Error(`SMTP submission refused: ${reply.text}`);
  };
  try {
    await client.send(warm, check);
    const before = await replyHistogram(smtp);
    const r = await timedRun(ctx, { api: smtp.child.pid }, o.n, () => client.send(measured, check));
    return { ...r, reply_latency: replyLatency(before, await replyHistogram(smtp)) };
  } finally {
    await client.close();
    await smtp.stop();
  }
}

async function overHttp(ctx, api, o, rep) {
  const send = async (m) => {
    const res = await httpJson('POST', `${api.url}/emails`, { body: m, headers: api.headers });
    if (res.status !== 200) throw new Error(`POST /emails answered ${res.status}: ${res.text.slice(0, 200)}`);
  };
  await mapLimit(o.warmup, CONNECTIONS, (i) => send(email(i, 'standard', 'w')));
  return timed(ctx, { api: api.child.pid }, o.n, rep * o.n, send);
}

/** What the phase measures; each entry adds its result under its key and its rows. */
export const SMTP_MEASUREMENTS = [
  {
    key: 'submission',
    async run(ctx, o) {
      const runs = { smtp: [], pipelined: [], http: [] };
      const SIDES = {
        http: { label: 'POST /emails         ', over: overHttp },
        smtp: { label: 'SMTP (nodemailer)    ', over: overSmtp },
        pipelined: { label: 'SMTP (RFC 2920 client)', over: overSmtpPipelined },
      };
      for (let rep = 0; rep < o.reps; rep++) {
        // alternate which side goes first, on a fresh Redis each time
        const order = Object.keys(SIDES);
        for (const side of rep % 2 === 0 ? order : order.reverse()) {
          await ctx.redis.reset();
          const api = await startPetrelApi(ctx);
          try {
            const r = await SIDES[side].over(ctx, api, o, rep);
            runs[side].push(r);
            ctx.progress(
              `  ${SIDES[side].label}: ${fmtInt(r.messages_per_s)} messages/s ` +
                `(${fmtInt(r.messages)} in ${r.seconds} s); cpu/message: server ${r.cpu_ms_per_message.server} ms, redis ${r.cpu_ms_per_message.redis} ms` +
                latencyText(r.reply_latency),
            );
          } finally {
            await api.stop();
          }
        }
      }
      const pick = (list) => {
        const m = median(list.map((r) => r.messages_per_s));
        return list.find((r) => r.messages_per_s === m) ?? list[0];
      };
      const smtp = pick(runs.smtp);
      const pipelined = pick(runs.pipelined);
      const http = pick(runs.http);
      // The target is held by the RFC 2920 client (bench/README.md, "SMTP phase", says why):
      // like the POST /emails side it keeps the server saturated, so the ratio compares the two
      // servers; nodemailer's (two round trips per message, its own MIME composition on the same
      // cores) is reported beside it
      const rat = ratio(smtp.messages_per_s, http.messages_per_s);
      const pipelinedRatio = ratio(pipelined.messages_per_s, http.messages_per_s);
      const cpuRatio = (side) => ratio(side.cpu_ms_per_message.server, http.cpu_ms_per_message.server);
      return {
        smtp,
        pipelined,
        http,
        ratio: rat,
        pipelined_ratio: pipelinedRatio,
        // server CPU per message, SMTP / API: the figure that does not depend on the machine
        cpu_ratio: { nodemailer: cpuRatio(smtp), pipelined: cpuRatio(pipelined) },
        target_client: 'rfc2920',
        met: pipelinedRatio !== null && pipelinedRatio >= TARGET,
        runs,
      };
    },
    rows(r, setup) {
      return [
        {
          phase: 'smtp',
          metric: `submission messages/s over SMTP from nodemailer (STARTTLS, AUTH, ${CONNECTIONS} pooled connections) vs POST /emails (${CONNECTIONS} keep-alive connections), ${fmtInt(setup.n)} messages, acceptance only; cpu ms/message SMTP ${r.smtp.cpu_ms_per_message.server} vs API ${r.http.cpu_ms_per_message.server} (${r.cpu_ratio?.nodemailer}×)${latencyText(r.smtp.reply_latency)}`,
          petrel: fmtInt(r.smtp.messages_per_s),
          baseline: `${fmtInt(r.http.messages_per_s)} (POST /emails)`,
          ratio: r.ratio,
          target: '',
          met: null,
          cpu_petrel: r.smtp.cpu,
          cpu_baseline: r.http.cpu,
        },
        {
          phase: 'smtp',
          metric: `the same from a client pipelining each message's content with the next envelope (RFC 2920, one round trip per message; the target's client); cpu ms/message SMTP ${r.pipelined.cpu_ms_per_message.server} vs API ${r.http.cpu_ms_per_message.server} (${r.cpu_ratio?.pipelined}×)${latencyText(r.pipelined.reply_latency)}`,
          petrel: fmtInt(r.pipelined.messages_per_s),
          baseline: `${fmtInt(r.http.messages_per_s)} (POST /emails)`,
          ratio: r.pipelined_ratio,
          target: `≥ ${TARGET}×`,
          met: r.met,
          cpu_petrel: r.pipelined.cpu,
          cpu_baseline: r.http.cpu,
        },
      ];
    },
  },
  // inbound (MX) messages/s parsed and stored (bench/lib/inbound-bench.mjs)
  inboundMeasurement(startPetrelSmtp),
];

export async function run(ctx) {
  const quick = ctx.opts.quick;
  const o = { n: quick ? 200 : 5_000, warmup: quick ? 20 : 500, reps: quick ? 1 : ctx.opts.reps };
  const out = { setup: o };
  try {
    for (const m of SMTP_MEASUREMENTS) out[m.key] = await m.run(ctx, o);
  } finally {
    await ctx.redis.reset();
  }
  const sub = out.submission;
  return {
    ...out,
    // the target's client (RFC 2920); nodemailer's figures are under submission.smtp
    petrel: sub.pipelined.messages_per_s,
    baseline: sub.http.messages_per_s,
    baseline_is: 'the same emails through POST /emails',
    ratio: sub.pipelined_ratio,
    unit: 'messages/s',
    target: { ratio_min: TARGET },
    met: SMTP_MEASUREMENTS.every((m) => out[m.key].met !== false),
    cpu: { petrel: sub.pipelined.cpu, baseline: sub.http.cpu },
  };
}

export function toJson(r) {
  return r;
}

export function rows(r) {
  return SMTP_MEASUREMENTS.flatMap((m) => m.rows(r[m.key], r.setup));
}
