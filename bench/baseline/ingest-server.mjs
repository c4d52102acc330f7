// Baseline ingest server: the raw stack Petrel's API is built on, and nothing more. Express 5 +
// express.json + a zod schema of the batch + one BullMQ addBulk of jobs carrying the payload.
// No auth, no idempotency, no records. Ids are UUIDv7 like Petrel's (the sink reads acceptance
// time from the Message-ID the baseline worker derives from them).
// env: REDIS_URL, PORT, BULL_PREFIX, QUEUE
import express from 'express';
import { z } from 'zod';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { uuidv7 } from '../lib/payload.mjs';

const env = process.env;
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue(env.QUEUE || 'baseline-send', { connection, prefix: env.BULL_PREFIX || 'base:bull' });

const address = z.string().min(3).max(320);
const emailSchema = z.object({
  from: z.string().min(3).max(320),
  to: z.union([address, z.array(address).min(1).max(50)]),
  subject: z.string().max(998),
  html: z.string().optional(),
  text: z.string().optional(),
  cc: z.union([address, z.array(address)]).optional(),
  bcc: z.union([address, z.array(address)]).optional(),
  reply_to: z.union([address, z.array(address)]).optional(),
  headers: z.record(z.string(), z.string()).optional(),
});
const batchSchema = z.array(emailSchema).min(1).max(100);

const jobOpts = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 60_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600, count: 100_000 },
};

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/health', (_req, res) => res.json({ ok: true }));
app.post('/emails/batch', express.json({ limit: '5mb' }), async (req, res) => {
  const parsed = batchSchema.safeParse(req.body);
  if (!parsed.success) {
    res
      .status(422)
      .json({ statusCode: 422, name: 'validation_error', message: parsed.error.issues[0]?.message });
    return;
  }
  const now = Date.now();
  const jobs = parsed.data.map((e) => {
    const id = uuidv7(now);
    return { name: 'send', data: { id, ...e }, opts: { ...jobOpts, jobId: id } };
  });
  try {
    await queue.addBulk(jobs);
  } catch (err) {
    res.status(503).json({ statusCode: 503, name: 'service_unavailable', message: String(err.message) });
    return;
  }
  res.json({ data: jobs.map((j) => ({ id: j.data.id })) });
});

const server = app.listen(Number(env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  server.close();
  queue.close().finally(() => connection.quit().finally(() => process.exit(0)));
});
