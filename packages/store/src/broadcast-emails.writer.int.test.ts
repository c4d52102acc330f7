import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendQueueOf } from '@petrel/contracts';
import {
  broadcastEmailId,
  runBroadcastFanout,
  type BroadcastEmail,
  type SendJobEnqueuer,
} from '@petrel/core';
import { SendQueues } from '@petrel/queue';
import { broadcastRecord, MemoryFanoutBroadcasts, RecordingFanoutObserver } from '@petrel/testing';
import { onCluster, useStoreRedis } from './redis.fixture.js';
import { BroadcastEmailsStore } from './broadcast-emails.writer.js';
import { ContactPropertiesStore } from './contact-properties.store.js';
import { ContactsStore } from './contacts.store.js';
import { EmailsStore } from './emails.store.js';
import { RecipientStatesStore } from './recipient-states.store.js';
import { SegmentMembersStore } from './segment-members.pager.js';
import { SegmentsStore } from './segments.store.js';
import { SuppressionsStore } from './suppressions.store.js';

const fx = useStoreRedis('broadcast-emails');
const RETENTION_MS = 3_600_000;
const SHARDS = onCluster ? 3 : 2;
let queues: SendQueues;
beforeAll(async () => {
  queues = new SendQueues(fx.redis, { prefix: fx.keys.bullPrefix(), shards: SHARDS });
  await queues.ready();
});
afterAll(async () => {
  await queues?.close();
});

let seq = 0;
const team = (): string => `team-${++seq}`;
const NOW = Date.now();

function emailsOf(t: string, n: number, from = 0): BroadcastEmail[] {
  return Array.from({ length: n }, (_, i) => ({
    emailId: broadcastEmailId(t, 'b-1', `c-${from + i}`, NOW),
    contactId: `c-${from + i}`,
    to: `u${from + i}@example.test`,
    subject: `Spring "news" for u${from + i}`,
    contactValues: i % 2 === 0 ? { first_name: `U${from + i}` } : null,
  }));
}

async function jobExists(emailId: string): Promise<boolean> {
  const name = sendQueueOf('broadcast', emailId, SHARDS);
  const queue = queues.queues.find((q) => q.name === name)!;
  return (await queue.getJob(emailId)) !== undefined;
}

describe('BroadcastEmailsStore', () => {
  it('creates records in the emails layout (no html/text, its own subject and contact values) and one broadcast-lane job per email', async () => {
    const t = team();
    const writer = new BroadcastEmailsStore(fx.redis, fx.keys, queues, RETENTION_MS);
    const broadcast = broadcastRecord({
      id: 'b-1',
      from: 'Acme <news@Acme.test>',
      subject: 'Spring "news"',
      reply_to: ['help@acme.test'],
      topic_id: 'topic-1',
    });
    const emails = emailsOf(t, 600);
    expect(await writer.createAndEnqueue(t, broadcast, emails)).toBe(600);
    const store = new EmailsStore(fx.redis, fx.keys, RETENTION_MS, { statsRetentionMs: RETENTION_MS });
    const first = emails[0]!;
    const loaded = await store.getForSend(t, first.emailId);
    expect(loaded!.record).toMatchObject({
      id: first.emailId,
      teamId: t,
      status: 'queued',
      lane: 'broadcast',
      broadcastId: 'b-1',
      contactId: 'c-0',
      messageId: `<${first.emailId}@acme.test>`,
      attempts: 0,
      template: null,
      content: {
        from: 'Acme <news@Acme.test>',
        to: ['u0@example.test'],
        cc: [],
        bcc: [],
        reply_to: ['help@acme.test'],
        subject: 'Spring "news" for u0',
        headers: {},
        tags: [],
        topic_id: 'topic-1',
      },
      contactValues: { first_name: 'U0' },
    });
    expect(loaded!.record.content.html).toBeUndefined();
    // an email whose content reads nothing of its contact stores no values
    const second = (await store.get(t, emails[1]!.emailId))!;
    expect(second.content.subject).toBe('Spring "news" for u1');
    expect(second).not.toHaveProperty('contactValues');
    expect(await fx.redis.hexists(fx.keys.email(t, emails[1]!.emailId), 'contact_values')).toBe(0);
    expect(loaded!.attachments).toEqual([]);
    const events = await store.events(t, first.emailId);
    expect(events.map((e) => e.type)).toEqual(['email.queued']);
    const page = await store.list(t, { limit: 100 });
    expect(page!.items).toHaveLength(100);
    expect(page!.hasMore).toBe(true);
    // the list page finds them by recipient and status (the fan-out indexes each chunk)
    const byTo = await store.list(t, { limit: 10, terms: ['to:u299@example.test', 'status:queued'] });
    expect(byTo!.items.map((r) => r.id)).toEqual([emails[299]!.emailId]);
    expect((await store.list(t, { limit: 1000, terms: ['status:queued'] }))!.items).toHaveLength(600);
    expect(await fx.redis.pttl(fx.keys.email(t, first.emailId))).toBeGreaterThan(RETENTION_MS - 60_000);
    for (const e of [emails[0]!, emails[299]!, emails[599]!]) expect(await jobExists(e.emailId)).toBe(true);
  });

  it('leaves existing records and jobs alone when a page is written again', async () => {
    const t = team();
    const writer = new BroadcastEmailsStore(fx.redis, fx.keys, queues, RETENTION_MS);
    const broadcast = broadcastRecord({ id: 'b-1' });
    const emails = emailsOf(t, 10);
    await writer.createAndEnqueue(t, broadcast, emails.slice(0, 4));
    const store = new EmailsStore(fx.redis, fx.keys, RETENTION_MS, { statsRetentionMs: RETENTION_MS });
    await store.recordEvent(t, emails[0]!.emailId, 'delivered', {
      id: 'e',
      type: 'email.delivered',
      created_at: new Date().toISOString(),
      teamId: t,
      data: {},
    });
    expect(await writer.createAndEnqueue(t, broadcast, emails)).toBe(6);
    expect((await store.get(t, emails[0]!.emailId))!.status).toBe('delivered');
    expect(await store.events(t, emails[1]!.emailId)).toHaveLength(1);
    const counts = await queues.counts();
    expect(counts.broadcast.waiting).toBeGreaterThanOrEqual(10);
  });

  it('records survive a failed enqueue and a second call adds the jobs (the resumed page)', async () => {
    const t = team();
    let fail = true;
    const flaky: SendJobEnqueuer = {
      enqueue: (lane, jobs) => {
        if (fail) return Promise.reject(new Error('queue unreachable'));
        return queues.enqueue(lane, jobs);
      },
    };
    const writer = new BroadcastEmailsStore(fx.redis, fx.keys, flaky, RETENTION_MS);
    const emails = emailsOf(t, 5, 1000);
    await expect(writer.createAndEnqueue(t, broadcastRecord({ id: 'b-1' }), emails)).rejects.toThrow(
      'queue unreachable',
    );
    expect(await jobExists(emails[0]!.emailId)).toBe(false);
    fail = false;
    expect(await writer.createAndEnqueue(t, broadcastRecord({ id: 'b-1' }), emails)).toBe(0);
    for (const e of emails) expect(await jobExists(e.emailId)).toBe(true);
  });
});

describe('runBroadcastFanout over the Redis stores', () => {
  it('fans a 2,500-contact segment out once, skipping unsubscribed and suppressed contacts, across a crash', async () => {
    const t = team();
    let ms = Date.now();
    const clock = { now: () => ++ms };
    const segment = await new SegmentsStore(fx.redis, fx.keys, clock).create(t, 'all');
    const contacts = new ContactsStore(fx.redis, fx.keys, clock);
    const rows = Array.from({ length: 2_500 }, (_, i) => ({
      email: `user${i}@example.test`,
      unsubscribed: i % 100 === 7,
    }));
    await contacts.upsertMany(t, rows, { onConflict: 'upsert', segments: [segment.id], topics: [] });
    await new SuppressionsStore(fx.redis, fx.keys, clock).add(t, 'USER42@example.test', 'manual', null);

    const broadcasts = new MemoryFanoutBroadcasts().put(
      t,
      broadcastRecord({ id: 'b-9', segment_id: segment.id }),
    );
    const writer = new BroadcastEmailsStore(fx.redis, fx.keys, queues, RETENTION_MS);
    let pages = 0;
    const ports = {
      broadcasts,
      members: new SegmentMembersStore(fx.redis, fx.keys),
      recipients: new RecipientStatesStore(fx.redis, fx.keys),
      emails: {
        // the first run dies after the records of its second page, before their jobs
        createAndEnqueue: async (...args: Parameters<BroadcastEmailsStore['createAndEnqueue']>) => {
          if (++pages === 2) {
            const noJobs = new BroadcastEmailsStore(
              fx.redis,
              fx.keys,
              { enqueue: () => Promise.reject(new Error('killed')) },
              RETENTION_MS,
            );
            return noJobs.createAndEnqueue(...args);
          }
          return writer.createAndEnqueue(...args);
        },
      },
      contactProperties: new ContactPropertiesStore(fx.redis, fx.keys),
      clock: { now: () => Date.now(), monotonicMs: () => performance.now() },
      observer: new RecordingFanoutObserver(),
    };
    const job = { teamId: t, broadcastId: 'b-9' };
    await expect(runBroadcastFanout(job, ports)).rejects.toThrow('killed');
    expect(await runBroadcastFanout(job, ports)).toEqual({ kind: 'sent' });

    const record = broadcasts.get(t, 'b-9')!;
    expect(record.counts).toEqual({ total: 2_500, enqueued: 2_474, skipped: 26 });
    const listed = await fx.redis.zcard(fx.keys.emails(t));
    expect(listed).toBe(2_474);
    const counts = await queues.counts();
    expect(counts.broadcast.waiting).toBeGreaterThanOrEqual(2_474);
    // every email record has its job
    const ids = await fx.redis.zrange(fx.keys.emails(t), '0', '-1');
    const missing: string[] = [];
    for (const id of ids) if (!(await jobExists(id))) missing.push(id);
    expect(missing).toEqual([]);
  });
});
