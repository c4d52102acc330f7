// Phase — topic sends. The delivery phase with 3 recipients per email, plain against the same
// emails sent with a `topic_id` (created through the API with the official `resend` SDK, default
// opt_in, one recipient of each email a contact who opted in). A topic email costs one read of
// every recipient's state (suppression, contact, unsubscribe, topic choice: one pipeline) and,
// because each recipient's List-Unsubscribe link is personal (RFC 8058), one SMTP message per
// recipient instead of one message with 3 RCPT TO. Ratio: topic emails/s over plain emails/s,
// same worker split, same run. A second pair does the same with one recipient per email (the
// usual shape of list mail): there a topic email is still one message, so the ratio is the cost
// of the recipient rule and the unsubscribe header alone.
import { Resend } from 'resend';
import { drainRun } from '../lib/drain.mjs';
import { email } from '../lib/payload.mjs';
import { fmtInt, medianRun, ratio } from '../lib/util.mjs';

export const name = 'topics';
export const order = 35;
export const title = 'Topic sends: 3 recipients per email, with topic_id against without';

const RECIPIENTS = 3;
const TARGET = 0.85;

/** Email i with 3 recipients (to, cc, bcc) or only the bcc one, optionally with a topic. */
function topicEmail(i, recipients, topicId) {
  const e = email(i, 'standard', 't');
  return {
    ...e,
    to: recipients === 1 ? [`member${i}@rcpt.example`] : [`reader${i}@rcpt.example`],
    ...(recipients === 1 ? {} : { cc: [`friend${i}@rcpt.example`], bcc: [`member${i}@rcpt.example`] }),
    ...(topicId ? { topic_id: topicId } : {}),
  };
}

async function createTopic(api, n) {
  const resend = new Resend(api.headers.authorization.replace(/^Bearer /, ''), { baseUrl: api.url });
  const created = await resend.topics.create({ name: 'bench-news', defaultSubscription: 'opt_in' });
  if (created.error) throw new Error(`topics.create: ${created.error.statusCode} ${created.error.message}`);
  const id = created.data.id;
  // every 10th email's bcc recipient is a contact who opted in (the send path reads contacts too)
  for (let i = 0; i < n; i += 10) {
    const r = await resend.contacts.create({
      email: `member${i}@rcpt.example`,
      topics: [{ id, subscription: 'opt_in' }],
    });
    if (r.error) throw new Error(`contacts.create: ${r.error.statusCode} ${r.error.message}`);
  }
  return id;
}

/** Plain against topic drains of `recipients`-recipient emails, `reps` times each; medians. */
async function pair(ctx, n, workers, recipients) {
  const plains = [];
  const topics = [];
  for (let rep = 0; rep < ctx.opts.reps; rep++) {
    const p = await drainRun(ctx, {
      system: 'petrel',
      n,
      workers,
      emailAt: (i) => topicEmail(i, recipients),
    });
    plains.push(p);
    ctx.progress(
      `  petrel   ${recipients} recipient(s), plain  run ${rep + 1}: ${fmtInt(p.emails_per_s)} emails/s`,
    );
    const t = await drainRun(ctx, {
      system: 'petrel',
      n,
      workers,
      messagesPerEmail: recipients,
      prepare: async (api) => {
        const id = await createTopic(api, n);
        return (i) => topicEmail(i, recipients, id);
      },
    });
    topics.push(t);
    ctx.progress(
      `  petrel   ${recipients} recipient(s), topic  run ${rep + 1}: ${fmtInt(t.emails_per_s)} emails/s ` +
        `(${fmtInt(t.messages_per_s ?? t.emails_per_s)} messages/s), cpu: workers ${t.cpu.workers}%, redis ${t.cpu.redis}%; ` +
        `worker ${t.cpu.worker_ms_per_email} ms/email`,
    );
  }
  const plain = medianRun(plains);
  const topic = medianRun(topics);
  return { plain, topic, ratio: ratio(topic.emails_per_s, plain.emails_per_s) };
}

export async function run(ctx) {
  const n = ctx.opts.quick ? Math.min(ctx.opts.n, 300) : Math.round(ctx.opts.n / RECIPIENTS);
  const workers = ctx.results.delivery?.best_split?.petrel ?? (ctx.opts.quick ? 1 : 2);
  const three = await pair(ctx, n, workers, RECIPIENTS);
  const one = await pair(ctx, n, workers, 1);
  const { plain, topic, ratio: rat } = three;
  return {
    petrel: topic.emails_per_s,
    baseline: plain.emails_per_s,
    baseline_is: `Petrel without topic_id, the same 3-recipient emails, ${workers} worker process(es)`,
    ratio: rat,
    unit: 'emails/s',
    messages_per_s: topic.messages_per_s,
    p50_ms: topic.accept_to_250_ms.p50,
    p99_ms: topic.accept_to_250_ms.p99,
    target: { ratio_min: TARGET },
    met: rat !== null && rat >= TARGET,
    one_recipient: {
      petrel: one.topic.emails_per_s,
      baseline: one.plain.emails_per_s,
      ratio: one.ratio,
      cpu: { petrel: one.topic.cpu, baseline: one.plain.cpu },
    },
    setup: { n, workers, recipients_per_email: RECIPIENTS, contacts: Math.ceil(n / 10) },
    cpu: { petrel: topic.cpu, baseline: plain.cpu },
    runs: { topic, plain, one },
  };
}

export function rows(r) {
  return [
    {
      phase: 'topics',
      metric: `emails/s with topic_id (3 recipients, a message each) vs without @${r.setup.workers}w (p50 / p99 ms)`,
      petrel: `${fmtInt(r.petrel)} (${fmtInt(r.p50_ms)} / ${fmtInt(r.p99_ms)}; ${fmtInt(r.messages_per_s)} msg/s)`,
      baseline: `${fmtInt(r.baseline)} (Petrel, no topic)`,
      ratio: r.ratio,
      target: `≥ ${TARGET.toFixed(2)}×`,
      met: r.met,
      cpu_petrel: r.cpu.petrel,
      cpu_baseline: r.cpu.baseline,
    },
    {
      phase: 'topics',
      metric: `emails/s with topic_id vs without, 1 recipient (one message either way) @${r.setup.workers}w`,
      petrel: fmtInt(r.one_recipient.petrel),
      baseline: `${fmtInt(r.one_recipient.baseline)} (Petrel, no topic)`,
      ratio: r.one_recipient.ratio,
      target: 'cost of the recipient rule and the unsubscribe header',
      met: null,
      cpu_petrel: r.one_recipient.cpu.petrel,
      cpu_baseline: r.one_recipient.cpu.baseline,
    },
  ];
}
