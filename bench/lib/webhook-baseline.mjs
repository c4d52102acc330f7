// The raw baseline of the webhooks phase, as its own process: a bare BullMQ Worker on one queue
// whose jobs carry the event body; each job is signed with `standardwebhooks` and POSTed with
// undici to RECEIVER_URL. No event log, no stream, no endpoint lookup, no retries: the least a
// signed delivery can cost on this stack. Env: REDIS_URL, QUEUE, PREFIX, CONCURRENCY,
// RECEIVER_URL, SECRET.
import { Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';

const env = process.env;
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const wh = new Webhook(env.SECRET);
const agent = new Agent({ connections: Number(env.CONCURRENCY) });
const worker = new Worker(
  env.QUEUE,
  async (job) => {
    const body = job.data.body;
    const id = `msg_${job.id}`;
    const ts = new Date();
    const signature = wh.sign(id, ts, body);
    const res = await request(env.RECEIVER_URL, {
      method: 'POST',
      dispatcher: agent,
      body,
      headers: {
        'content-type': 'application/json',
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
        'webhook-signature': signature,
      },
    });
    await res.body.text();
    if (res.statusCode >= 300) throw new Error(`receiver answered ${res.statusCode}`);
  },
  { connection, prefix: env.PREFIX, concurrency: Number(env.CONCURRENCY) },
);
worker.on('error', () => undefined);
process.on('SIGTERM', async () => {
  await worker.close();
  await agent.close();
  connection.disconnect();
  process.exit(0);
});
process.stdout.write('ready\n');
