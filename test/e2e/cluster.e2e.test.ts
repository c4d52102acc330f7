/**
 * Petrel on a real Redis Cluster: 3 masters and 3 replicas, each a local redis-server with the
 * production settings (AOF everysec, noeviction), the whole stack on REDIS_URL=redis+cluster://…
 * with QUEUE_SHARDS=6, driven by the official `resend` SDK (camelCase options: `scheduledAt`,
 * `idempotencyKey`, `fallbackValue`) and checked at a real SMTP sink. Each scenario would fail
 * with CROSSSLOT on a cluster if one of its scripts or transactions spanned two hash slots.
 *
 * It also checks where the data went: the send lane's 6 queues are 6 hash slots, which
 * `redis-cli --cluster create` spreads over the masters (each master serves one contiguous third
 * of the 16384 slots), so every master holds some of the jobs.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreateTemplateOptions } from 'resend';
import { startRedisCluster, waitUntil, type SinkMessage, type TestRedisCluster } from '@petrel/testing';
import { email, startStack, type Stack, uniqueAddress } from './helpers.js';

const SHARDS = 6;

let cluster: TestRedisCluster;
let stack: Stack;
/** The test's own cluster client: where the keys live. */
let admin: Cluster;

beforeAll(async () => {
  cluster = await startRedisCluster({ masters: 3, replicas: 1 });
  stack = await startStack({ redis: cluster, env: { QUEUE_SHARDS: String(SHARDS) } });
  admin = new Cluster(cluster.nodes, { scaleReads: 'master' });
});
afterAll(async () => {
  await admin?.quit().catch(() => undefined);
  await stack?.stop();
  await cluster?.stop();
});

const receivedBy = (address: string): SinkMessage[] =>
  stack.sink.messages.filter((m) => m.envelope.to.includes(address));
const messageId = (id: string) => `<${id}@acme.test>`;

async function lastEvent(id: string): Promise<string | undefined> {
  return (await stack.resend.emails.get(id)).data?.last_event;
}

/** Per master (by port): the keys under the stack's BullMQ prefix, grouped by queue name. */
async function bullKeysPerMaster(): Promise<Map<number, Map<string, string[]>>> {
  const out = new Map<number, Map<string, string[]>>();
  for (const node of admin.nodes('master')) {
    const byQueue = new Map<string, string[]>();
    const bull = `${stack.prefix}:bull:`;
    for await (const batch of node.scanStream({ match: `${bull}*`, count: 1000 })) {
      for (const key of batch as string[]) {
        const queue = key.slice(bull.length).split(':')[0]!;
        byQueue.set(queue, [...(byQueue.get(queue) ?? []), key]);
      }
    }
    out.set(node.options.port!, byQueue);
  }
  return out;
}

describe('sending on a 3-master cluster (QUEUE_SHARDS=6)', () => {
  it('delivers a 100-email batch once each (one group job), and single sends spread over every master', async () => {
    const emails = Array.from({ length: 100 }, (_, i) => ({
      from: 'Acme <news@acme.test>',
      to: `cl-batch${i}@example.test`,
      subject: `Cluster batch ${i}`,
      html: `<p>Item <b>${i}</b></p>`,
    }));
    const { data, error } = await stack.resend.batch.send(emails);
    expect(error).toBeNull();
    const ids = data!.data.map((d) => d.id);
    expect(new Set(ids).size).toBe(100);

    await waitUntil(() => ids.every((id) => stack.sink.byMessageId(messageId(id)).length > 0), {
      timeoutMs: 30_000,
      message: 'the 100 emails at the sink',
    });
    await stack.settled(ids); // every send job over: no duplicate can still come
    for (const [i, id] of ids.entries()) {
      const copies = stack.sink.byMessageId(messageId(id));
      expect(copies).toHaveLength(1);
      expect(copies[0]!.envelope.to).toEqual([`cl-batch${i}@example.test`]);
      expect(copies[0]!.parsed.subject).toBe(`Cluster batch ${i}`);
    }
    await waitUntil(async () => (await lastEvent(ids[99]!)) === 'delivered', {
      message: 'the last email recorded as delivered',
    });

    // The batch was one group job, in the shard of its first email; single sends are one job each,
    // in the shard of their id: 80 of them reach every shard but with a probability of
    // 6 × (5/6)^80 ≈ 3e-6.
    const singles = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const res = await stack.resend.emails.send({ ...emails[i]!, to: `cl-single${i}@example.test` });
        expect(res.error).toBeNull();
        return res.data!.id;
      }),
    );
    await stack.settled(singles);

    // Every master served some of these jobs: each shard's event stream (`<queue>:events`, where
    // BullMQ logs added / active / completed) lives in its queue's slot.
    const perMaster = await bullKeysPerMaster();
    expect(perMaster.size).toBe(3);
    const sendShards = new Set<string>();
    for (const [port, byQueue] of perMaster) {
      const shards = [...byQueue.keys()].filter(
        (q) => q.includes('petrel-send-') && !q.includes('broadcast'),
      );
      // 6 shards over 3 equal slot ranges: two each (the shard names are chosen for that)
      expect(shards, `send shards on master ${port}`).toHaveLength(SHARDS / 3);
      for (const q of shards) {
        sendShards.add(q);
        const node = admin.nodes('master').find((n) => n.options.port === port)!;
        const events = await node.xlen(`${stack.prefix}:bull:${q}:events`);
        expect(events, `events of ${q} on ${port}`).toBeGreaterThan(0);
      }
    }
    expect(sendShards.size).toBe(SHARDS);
  });

  it('a single send (POST /emails) with cc and bcc reaches every recipient once', async () => {
    const to = uniqueAddress('single');
    const cc = uniqueAddress('cc');
    const bcc = uniqueAddress('bcc');
    const { data, error } = await stack.resend.emails.send({
      from: 'Acme <a@acme.test>',
      to,
      cc,
      bcc,
      replyTo: 'help@acme.test',
      subject: 'single on a cluster',
      html: '<p>one</p>',
      tags: [{ name: 'kind', value: 'single' }],
    });
    expect(error).toBeNull();
    const msg = await waitUntil(() => stack.sink.byMessageId(messageId(data!.id))[0], {
      message: 'the single email at the sink',
    });
    expect(msg.envelope.to.sort()).toEqual([to, cc, bcc].sort());
    expect(msg.parsed.replyTo?.[0]?.address).toBe('help@acme.test');
    await stack.settled([data!.id]);
    expect(stack.sink.byMessageId(messageId(data!.id))).toHaveLength(1);
  });

  it('permissive batch: the valid emails are accepted and sent, the invalid one reported', async () => {
    const [a, b] = [uniqueAddress('perm'), uniqueAddress('perm')];
    const { data, error } = await stack.resend.batch.send(
      [
        email(1, { to: a }) as never,
        email(2, { to: 'not-an-address' }) as never,
        email(3, { to: b }) as never,
      ],
      { batchValidation: 'permissive' },
    );
    expect(error).toBeNull();
    expect(data!.data).toHaveLength(2);
    expect((data as unknown as { errors: { index: number }[] }).errors).toEqual([
      expect.objectContaining({ index: 1 }),
    ]);
    await waitUntil(() => receivedBy(a).length > 0 && receivedBy(b).length > 0, {
      message: 'both valid emails at the sink',
    });
  });
});

describe('idempotency on a cluster', () => {
  it('replays the first response for the same key and body and sends once', async () => {
    const [a, b] = [uniqueAddress('idem'), uniqueAddress('idem')];
    const key = `cluster-order-${Date.now()}`;
    const batch = [email(1, { to: a }), email(2, { to: b })] as never[];
    const first = await stack.resend.batch.send(batch, { idempotencyKey: key });
    expect(first.error).toBeNull();
    for (let i = 0; i < 3; i++) {
      const again = await stack.resend.batch.send(batch, { idempotencyKey: key });
      expect(again.data).toEqual(first.data);
    }
    const conflict = await stack.resend.batch.send([email(9, { to: a })] as never[], { idempotencyKey: key });
    expect(conflict.error).toMatchObject({ statusCode: 409, name: 'invalid_idempotent_request' });

    await waitUntil(() => receivedBy(a).length > 0 && receivedBy(b).length > 0, {
      message: 'the two emails at the sink',
    });
    await stack.drained(); // a replay that queued anything would have sent it by now
    expect(receivedBy(a)).toHaveLength(1);
    expect(receivedBy(b)).toHaveLength(1);
  });

  it('8 parallel requests with one key: exactly one send', async () => {
    const to = uniqueAddress('parallel');
    const key = `cluster-parallel-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 8 }, () =>
        stack.resend.emails.send(email(7, { to }) as never, { idempotencyKey: key }),
      ),
    );
    for (const r of results.filter((r) => r.error))
      expect(r.error).toMatchObject({ statusCode: 409, name: 'concurrent_idempotent_requests' });
    const ids = new Set(results.filter((r) => r.data).map((r) => r.data!.id));
    expect(ids.size).toBe(1);
    await waitUntil(() => receivedBy(to).length > 0, { message: 'the email at the sink' });
    await stack.drained();
    expect(receivedBy(to)).toHaveLength(1);
  });
});

describe('scheduled emails on a cluster', () => {
  it('schedules on every shard, reschedules one, cancels the rest: only the rescheduled one is sent', async () => {
    // 24 emails an hour ahead: their delayed jobs spread over the 6 shards (so over the 3
    // masters), and cancel / reschedule must find each job on its own shard.
    const addresses = Array.from({ length: 24 }, () => uniqueAddress('sched'));
    const sent = await Promise.all(
      addresses.map((to, i) =>
        stack.resend.emails.send({
          from: 'a@acme.test',
          to,
          subject: `scheduled ${i}`,
          html: '<p>later</p>',
          scheduledAt: 'in 1 hour',
        }),
      ),
    );
    for (const s of sent) expect(s.error).toBeNull();
    const ids = sent.map((s) => s.data!.id);
    expect(await lastEvent(ids[0]!)).toBe('scheduled');

    // delayed jobs on every master
    const delayedPerMaster = await Promise.all(
      [...(await bullKeysPerMaster())].map(async ([port, byQueue]) => {
        const node = admin.nodes('master').find((n) => n.options.port === port)!;
        let n = 0;
        for (const q of byQueue.keys()) n += await node.zcard(`${stack.prefix}:bull:${q}:delayed`);
        return n;
      }),
    );
    expect(
      delayedPerMaster.every((n) => n > 0),
      `delayed jobs per master ${delayedPerMaster}`,
    ).toBe(true);
    expect(delayedPerMaster.reduce((a, b) => a + b, 0)).toBe(24);

    // reschedule the first to now + 1 s: it is sent; cancel the others: they never are
    const upd = await stack.resend.emails.update({
      id: ids[0]!,
      scheduledAt: new Date(Date.now() + 1_000).toISOString(),
    });
    expect(upd.error).toBeNull();
    for (const id of ids.slice(1)) {
      const c = await stack.resend.emails.cancel(id);
      expect(c.error, `cancel ${id}`).toBeNull();
    }
    await waitUntil(async () => (await lastEvent(ids[0]!)) === 'delivered', {
      timeoutMs: 15_000,
      message: 'the rescheduled email delivered',
    });
    for (const id of ids.slice(1)) expect(await lastEvent(id)).toBe('canceled');
    await stack.settled(ids); // no job left that could still send one of them
    expect(receivedBy(addresses[0]!)).toHaveLength(1);
    for (const a of addresses.slice(1)) expect(receivedBy(a)).toEqual([]);
    const again = await stack.resend.emails.cancel(ids[1]!);
    expect(again.error).toMatchObject({ statusCode: 422 });
  });
});

describe('templates on a cluster', () => {
  const template = (alias: string): CreateTemplateOptions => ({
    name: 'Sign-in code',
    alias,
    from: 'Acme Accounts <accounts@acme.test>',
    subject: '{{{APP}}} code for {{{USER}}}',
    html: '<p>Hello {{{USER}}}, your code is <b>{{{CODE}}}</b> ({{{MINUTES}}} minutes).</p>',
    text: 'Code {{{CODE}}}',
    variables: [
      { key: 'USER', type: 'string', fallbackValue: 'friend' },
      { key: 'CODE', type: 'string' },
      { key: 'APP', type: 'string', fallbackValue: 'Acme' },
      { key: 'MINUTES', type: 'number', fallbackValue: 10 },
    ],
  });

  it('creates, publishes and sends from a template with variables, single and batch', async () => {
    const alias = `cluster-code-${Date.now()}`;
    const created = await stack.resend.templates.create(template(alias));
    expect(created.error).toBeNull();
    const id = created.data!.id;
    // a draft cannot be sent yet
    const draft = await stack.resend.emails.send({ to: uniqueAddress('draft'), template: { id: alias } });
    expect(draft.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    const published = await stack.resend.templates.publish(id);
    expect(published.error).toBeNull();
    expect((await stack.resend.templates.get(alias)).data).toMatchObject({ id, status: 'published' });

    const ada = uniqueAddress('ada');
    const bob = uniqueAddress('bob');
    const single = await stack.resend.emails.send({
      to: ada,
      template: { id: alias, variables: { USER: 'Ada', CODE: 'X1<2', APP: 'Petrel', MINUTES: 5 } },
    });
    expect(single.error).toBeNull();
    const batch = await stack.resend.batch.send([{ to: bob, template: { id, variables: { CODE: '777' } } }]);
    expect(batch.error).toBeNull();

    const a = await waitUntil(() => receivedBy(ada)[0], { message: 'the email to ada' });
    expect(a.parsed.subject).toBe('Petrel code for Ada');
    expect(a.parsed.html).toContain('<p>Hello Ada, your code is <b>X1&lt;2</b> (5 minutes).</p>');
    expect(a.parsed.text?.trim()).toBe('Code X1<2');
    expect(a.parsed.from).toMatchObject({ name: 'Acme Accounts', address: 'accounts@acme.test' });
    const b = await waitUntil(() => receivedBy(bob)[0], { message: 'the email to bob' });
    expect(b.parsed.subject).toBe('Acme code for friend');
    expect(b.parsed.html).toContain('your code is <b>777</b> (10 minutes)');
  });
});
