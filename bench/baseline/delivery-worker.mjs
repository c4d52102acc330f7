// Baseline delivery worker: a bare BullMQ Worker + a pooled nodemailer transport composing each
// message from the job's payload (nodemailer builds the MIME). The Message-ID carries the job's
// UUIDv7 id, as Petrel's does, so the sink measures both sides' acceptance-to-250 the same way.
// env: REDIS_URL, BULL_PREFIX, QUEUE, SMTP_URL, CONCURRENCY (50), POOL (20); with DKIM_PRIVATE_KEY
// (PEM), DKIM_DOMAIN and DKIM_SELECTOR nodemailer DKIM-signs every message (the dkim phase).
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { createTransport } from 'nodemailer';

const env = process.env;
const transport = createTransport({
  pool: true,
  url: env.SMTP_URL,
  maxConnections: Number(env.POOL || 20),
  maxMessages: Infinity,
  logger: false,
  ...(env.DKIM_PRIVATE_KEY && {
    dkim: { domainName: env.DKIM_DOMAIN, keySelector: env.DKIM_SELECTOR, privateKey: env.DKIM_PRIVATE_KEY },
  }),
});
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });

const worker = new Worker(
  env.QUEUE || 'baseline-send',
  async (job) => {
    const e = job.data;
    const info = await transport.sendMail({
      from: e.from,
      to: e.to,
      cc: e.cc,
      bcc: e.bcc,
      replyTo: e.reply_to,
      subject: e.subject,
      html: e.html,
      text: e.text,
      headers: e.headers,
      messageId: `<${e.id}@bench.example>`,
    });
    if (info.rejected?.length) throw new Error(`rejected: ${info.response}`);
    return 'sent';
  },
  { connection, prefix: env.BULL_PREFIX || 'base:bull', concurrency: Number(env.CONCURRENCY || 50) },
);
worker.on('failed', (job, err) => process.stderr.write(`job ${job?.id} failed: ${err.message}\n`));
worker.on('error', (err) => process.stderr.write(`worker error: ${err.message}\n`));

let stopping = false;
process.on('SIGTERM', async () => {
  if (stopping) process.exit(1);
  stopping = true;
  await worker.close();
  transport.close();
  await connection.quit().catch(() => undefined);
  process.exit(0);
});
