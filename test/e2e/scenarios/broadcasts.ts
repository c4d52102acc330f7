/**
 * Broadcasts end to end with the official `resend` SDK (camelCase options: `segmentId`,
 * `firstName`, `fallbackValue`, `scheduledAt`) against a real SMTP sink: a send-now broadcast
 * delivers personalised mail (names with fallbacks, a custom property, the address) with a
 * working one-click unsubscribe link, and skips unsubscribed and suppressed contacts; a scheduled
 * one goes out at its time and not before; a cancel right after send stops the rest of a 20,000
 * contact fan-out.
 *
 * Shared by the single-node suite (broadcast-fanout.e2e.test.ts) and the Redis Cluster suite
 * (audience-cluster.e2e.test.ts): every script, transaction and pipeline of the fan-out and of
 * the send path must keep to one hash slot.
 */
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Queue } from 'bullmq';
import { BROADCAST_FANOUT_QUEUE } from '@petrel/contracts';
import { ContactsStore, Keys, createRedis, type RedisClient } from '@petrel/store';
import { waitUntil, type SinkMessage } from '@petrel/testing';
import type { Stack } from '../helpers.js';

const FROM = 'Acme <news@acme.test>';

export function broadcastScenarios(current: () => Stack): void {
  let stack: Stack;
  let admin: { redis: RedisClient; keys: Keys; fanout: Queue; prefix: string } | undefined;
  beforeEach(() => {
    stack = current();
  });
  afterAll(async () => {
    await admin?.fanout.close();
    await admin?.redis.quit();
  });
  /** The test's own connection to the stack's Redis (opened on first use). */
  function direct() {
    if (!admin || admin.prefix !== stack.prefix) {
      const redis = createRedis(stack.redis.url);
      const keys = new Keys(stack.prefix);
      const fanout = new Queue(BROADCAST_FANOUT_QUEUE, { connection: redis, prefix: keys.bullPrefix() });
      fanout.on('error', () => undefined);
      admin = { redis, keys, fanout, prefix: stack.prefix };
    }
    return admin;
  }
  let n = 0;
  const tag = () => `b${Date.now().toString(36)}${++n}`;

  async function segment(): Promise<string> {
    const { data, error } = await stack.resend.segments.create({ name: `segment ${++n}` });
    expect(error).toBeNull();
    return data!.id;
  }

  /** The team that owns the segment (other scenarios of the stack may have made more teams). */
  async function teamOf(segmentId: string): Promise<string> {
    const { redis, keys } = direct();
    for (const team of await redis.smembers(keys.teams()))
      if ((await redis.exists(keys.segment(team, segmentId))) === 1) return team;
    throw new Error(`no team has segment ${segmentId}`);
  }

  /** `count` contacts `<t>.<i>@bulk.test` in the segment, written straight through the store. */
  async function bulkContacts(segmentId: string, t: string, count: number): Promise<void> {
    const { redis, keys } = direct();
    const teamId = await teamOf(segmentId);
    const contacts = new ContactsStore(redis, keys);
    for (let i = 0; i < count; i += 5_000) {
      const rows = Array.from({ length: Math.min(5_000, count - i) }, (_, j) => ({
        email: `${t}.${i + j}@bulk.test`,
      }));
      await contacts.upsertMany(teamId, rows, { onConflict: 'upsert', segments: [segmentId], topics: [] });
    }
  }

  async function broadcast(segmentId: string, t: string, content: { html: string; text?: string }) {
    const { data, error } = await stack.resend.broadcasts.create({
      segmentId,
      from: FROM,
      subject: `[${t}] Hi {{{contact.first_name|there}}}`,
      ...content,
    });
    expect(error).toBeNull();
    return data!.id;
  }

  async function statusOf(id: string): Promise<string | undefined> {
    const { data } = await stack.resend.broadcasts.get(id);
    return data?.status;
  }

  async function until(id: string, status: string, timeoutMs = 30_000): Promise<void> {
    await waitUntil(async () => (await statusOf(id)) === status, {
      timeoutMs,
      intervalMs: 100,
      message: `broadcast ${id} to be ${status}`,
    });
  }

  /** No fan-out job and no send job can run any more: every message of the test is in the sink. */
  async function quiet(timeoutMs = 60_000): Promise<void> {
    await waitUntil(
      async () => {
        const c = await direct().fanout.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
        return Object.values(c).every((x) => x === 0);
      },
      { timeoutMs, message: 'the fan-out queue to be empty' },
    );
    await stack.drained(timeoutMs);
  }

  const mailOf = (t: string): SinkMessage[] =>
    stack.sink.messages.filter((m) => m.parsed.subject?.startsWith(`[${t}]`));
  const recipientsOf = (t: string) =>
    mailOf(t)
      .flatMap((m) => m.envelope.to)
      .sort();
  const header = (m: SinkMessage, name: string) =>
    m.parsed.headers.find((h) => h.key === name.toLowerCase())?.value;

  describe('broadcasts: send now, personalised, unsubscribe, skips', () => {
    it('delivers personalised mail with a working unsubscribe link, skipping unsubscribed and suppressed contacts', async () => {
      const t = tag();
      const seg = await segment();
      const prop = await stack.resend.contactProperties.create({
        key: `company_${t}`,
        type: 'string',
        fallbackValue: 'your company',
      });
      expect(prop.error).toBeNull();
      const [ada, bob, carl, dora, eve] = ['ada', 'bob', 'carl', 'dora', 'eve'].map(
        (x) => `${x}.${t}@people.test`,
      ) as [string, string, string, string, string];
      const people = [
        { email: ada, firstName: 'Ada <3', properties: { [`company_${t}`]: 'Analytical Engines' } },
        { email: bob },
        { email: carl, firstName: 'Carl', unsubscribed: true },
        { email: dora, firstName: 'Dora' },
        { email: eve, firstName: 'Eve' },
      ];
      for (const p of people) {
        const { error } = await stack.resend.contacts.create({ ...p, segments: [{ id: seg }] });
        expect(error).toBeNull();
      }
      const suppressed = await stack.http('/suppressions', {
        method: 'POST',
        body: JSON.stringify({ email: dora }),
      });
      expect(suppressed.status).toBeLessThan(300);

      const id = await broadcast(seg, t, {
        html: `<p>Hi {{{contact.first_name|there}}} from {{{contact.company_${t}}}} ({{{contact.email}}})</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>`,
        text: `Hi {{{contact.first_name|there}}}, {{{UNSUBSCRIBE_URL}}}`,
      });
      const sent = await stack.resend.broadcasts.send(id);
      expect(sent.error).toBeNull();
      await until(id, 'sent');
      await quiet();
      expect(recipientsOf(t)).toEqual([ada, bob, eve].sort());

      const byRecipient = new Map(mailOf(t).map((m) => [m.envelope.to[0]!, m]));
      const forAda = byRecipient.get(ada)!;
      expect(forAda.parsed.subject).toBe(`[${t}] Hi Ada <3`);
      expect(forAda.parsed.html).toContain(`<p>Hi Ada &lt;3 from Analytical Engines (${ada})</p>`);
      expect(forAda.parsed.text).toContain('Hi Ada <3, http');
      const forBob = byRecipient.get(bob)!;
      expect(forBob.parsed.subject).toBe(`[${t}] Hi there`);
      expect(forBob.parsed.html).toContain(`<p>Hi there from your company (${bob})</p>`);
      // the link in the body is the recipient's own, the one List-Unsubscribe carries (RFC 8058)
      const link = /href="([^"]+)"/.exec(forAda.parsed.html!)![1]!.replaceAll('&amp;', '&');
      expect(header(forAda, 'List-Unsubscribe')).toContain(link.split('/unsubscribe/')[0]!);
      expect(header(forAda, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');

      const clicked = await fetch(link, { method: 'POST', body: 'List-Unsubscribe=One-Click' });
      expect(clicked.status).toBe(200);
      const after = await stack.resend.contacts.get({ email: ada });
      expect(after.data?.unsubscribed).toBe(true);

      const t2 = tag();
      const second = await broadcast(seg, t2, { html: '<p>Again, {{{contact.first_name|there}}}</p>' });
      expect((await stack.resend.broadcasts.send(second)).error).toBeNull();
      await until(second, 'sent');
      await quiet();
      expect(recipientsOf(t2)).toEqual([bob, eve].sort());
    });
  });

  describe('broadcasts: scheduled', () => {
    it('goes out at its scheduled time, not before', async () => {
      const t = tag();
      const seg = await segment();
      for (const x of ['a', 'b', 'c']) {
        const { error } = await stack.resend.contacts.create({
          email: `${x}.${t}@later.test`,
          segments: [{ id: seg }],
        });
        expect(error).toBeNull();
      }
      const id = await broadcast(seg, t, { html: '<p>Later</p>' });
      const due = Date.now() + 3_000;
      const sent = await stack.resend.broadcasts.send(id, { scheduledAt: new Date(due).toISOString() });
      expect(sent.error).toBeNull();
      expect(await statusOf(id)).toBe('scheduled');
      await waitUntil(() => mailOf(t).length === 3, {
        timeoutMs: 20_000,
        message: 'the scheduled broadcast',
      });
      for (const m of mailOf(t)) expect(m.receivedAt).toBeGreaterThanOrEqual(due);
      await until(id, 'sent');
      await quiet();
      expect(mailOf(t)).toHaveLength(3);
    });
  });

  describe('broadcasts: cancel mid fan-out', () => {
    it('a cancel right after send stops the rest of a 20,000-contact segment', async () => {
      const t = tag();
      const seg = await segment();
      await bulkContacts(seg, t, 20_000);
      const id = await broadcast(seg, t, { html: '<p>Hi {{{contact.email}}}</p>' });
      const sent = await stack.resend.broadcasts.send(id);
      expect(sent.error, JSON.stringify(sent.error)).toBeNull();
      const canceled = await stack.resend.broadcasts.cancel(id);
      expect(canceled.error, JSON.stringify(canceled.error)).toBeNull();
      await until(id, 'canceled');
      await quiet(120_000);
      const delivered = mailOf(t).length;
      expect(delivered).toBeLessThan(20_000);
      // the emails the fan-out made before the cancel were canceled at send time, not sent
      const { redis, keys } = direct();
      const teamId = await teamOf(seg);
      const ids = await redis.zrange(keys.emails(teamId), '0', '-1');
      const pipe = redis.pipeline();
      for (const e of ids) pipe.hmget(keys.email(teamId, e), 'broadcast_id', 'status');
      const ofBroadcast = ((await pipe.exec()) ?? [])
        .map(([, v]) => v as [string | null, string | null])
        .filter(([b]) => b === id);
      const statuses = ofBroadcast.map(([, s]) => s);
      expect(statuses.filter((s) => s === 'delivered')).toHaveLength(delivered);
      expect(statuses.every((s) => s === 'delivered' || s === 'canceled')).toBe(true);
      console.log(
        `cancel mid fan-out: ${ofBroadcast.length} of 20000 emails created, ${delivered} delivered before the cancel`,
      );
      // nothing more arrives: no job is left that could send
      await quiet();
      expect(mailOf(t)).toHaveLength(delivered);
    });
  });
}
