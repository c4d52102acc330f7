#!/usr/bin/env node
// The write a delivered email's outcome costs, per email: this process's CPU (process.cpuUsage)
// and Redis's (INFO cpu), for the two ways of ending the recipients' soft-bounce streaks:
//   two  EmailsStore.recordEvents (sent + delivered, attempts) then SoftBounceStore.reset: two
//        awaited round trips (the soft-bounces stage before session 9)
//   one  EmailsStore.recordEvents naming the streaks to end (`endSoftBounceStreaks`): the
//        record script deletes them (one round trip)
// 50 writes in flight as in the worker; the two variants alternate in blocks on one Redis, so a
// busy machine weighs on both alike. Built packages (run `npm run build` first).
//   node bench/record-outcome.mjs [--emails 4000] [--rounds 4]
import { EmailsStore, Keys, SoftBounceStore, createRedis } from '@petrel/store';
import { startRedis } from './lib/redis.mjs';

const args = process.argv.slice(2);
const option = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const EMAILS = Number(option('--emails') || 4000);
const ROUNDS = Number(option('--rounds') || 4);
const IN_FLIGHT = 50;

const redis = await startRedis();
const client = createRedis(redis.url, 'command', 'record-outcome');
const keys = new Keys('pt');
const teamId = 'team-bench';
const emails = new EmailsStore(client, keys, 86_400_000, { statsRetentionMs: 86_400_000 });
const streaks = new SoftBounceStore(client, keys);

async function redisCpu() {
  const info = await redis.client.info('cpu');
  const num = (k) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)[1]);
  return num('used_cpu_user') + num('used_cpu_sys');
}
const event = (id, type) => ({
  id: `${type}-${id}`,
  type,
  created_at: new Date().toISOString(),
  teamId,
  data: { email_id: id, to: [`user-${id}@example.test`] },
});
let n = 0;
async function staged(count) {
  const ids = Array.from({ length: count }, () => `em-${++n}`);
  for (let i = 0; i < ids.length; i += 100) {
    const content = (id) => ({
      from: 'Acme <hello@acme.test>',
      to: [`user-${id}@example.test`],
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Order',
      html: '<p>x</p>',
      text: 'x',
      headers: {},
      tags: [],
      attachments: [],
    });
    await emails.stage(
      teamId,
      ids.slice(i, i + 100).map((id) => ({
        id,
        content: content(id),
        status: 'queued',
        lane: 'send',
        dueMs: 0,
        messageId: `<${id}@acme.test>`,
        event: event(id, 'email.queued'),
      })),
      new Date(),
    );
  }
  return ids;
}
const variants = {
  async two(id) {
    const to = `user-${id}@example.test`;
    await emails.recordEvents(teamId, id, items(id), { attempts: '1' });
    await streaks.reset(teamId, [to]);
  },
  async one(id) {
    const to = `user-${id}@example.test`;
    await emails.recordEvents(teamId, id, items(id), { attempts: '1' }, { endSoftBounceStreaks: [to] });
  },
};
const items = (id) => [
  { status: 'sent', event: event(id, 'email.sent') },
  { status: 'delivered', event: event(id, 'email.delivered') },
];
async function run(name, ids) {
  const r0 = await redisCpu();
  const c0 = process.cpuUsage();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < ids.length) await variants[name](ids[next++]);
    }),
  );
  const c = process.cpuUsage(c0);
  const r1 = await redisCpu();
  return { client: (c.user + c.system) / ids.length, redis: ((r1 - r0) * 1e6) / ids.length };
}
const totals = { two: [], one: [] };
// warm-up: scripts loaded, JIT settled on both paths
for (let i = 0; i < 3; i++) for (const name of ['two', 'one']) await run(name, await staged(2000));
for (let r = 0; r < ROUNDS; r++) {
  for (const name of r % 2 ? ['one', 'two'] : ['two', 'one']) {
    const res = await run(name, await staged(EMAILS));
    totals[name].push(res);
    console.log(
      `round ${r + 1} ${name}: client ${res.client.toFixed(1)} µs, redis ${res.redis.toFixed(1)} µs per email`,
    );
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const name of ['two', 'one']) {
  const t = totals[name];
  console.log(
    `${name}: median client ${median(t.map((x) => x.client)).toFixed(1)} µs, redis ${median(t.map((x) => x.redis)).toFixed(1)} µs per email`,
  );
}
client.disconnect();
await redis.stop();
process.exit(0);
