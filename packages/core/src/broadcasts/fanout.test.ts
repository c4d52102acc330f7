import { describe, expect, it } from 'vitest';
import type { BroadcastRecord, ContactRecord } from '@petrel/contracts';
import {
  CrashPlan,
  MemoryAudienceState,
  MemoryBroadcastEmails,
  MemoryFanoutBroadcasts,
  MemorySegmentMembers,
  RecordingFanoutObserver,
  broadcastRecord,
} from '@petrel/testing';
import { broadcastEmailId, runBroadcastFanout, type FanoutPorts } from './fanout.js';

const TEAM = 'team-1';
const BROADCAST = 'b-1';
const SEGMENT = 'seg-1';
const job = { teamId: TEAM, broadcastId: BROADCAST };
const NOW = Date.parse('2026-01-02T03:05:00.000Z');

function contact(i: number): ContactRecord {
  return {
    id: `c-${String(i).padStart(6, '0')}`,
    email: `user${i}@example.test`,
    first_name: null,
    last_name: null,
    unsubscribed: false,
    properties: {},
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  };
}

interface World {
  ports: FanoutPorts;
  broadcasts: MemoryFanoutBroadcasts;
  members: MemorySegmentMembers;
  audience: MemoryAudienceState;
  emails: MemoryBroadcastEmails;
  observer: RecordingFanoutObserver;
  crashes: CrashPlan;
  /** How often the property definitions were read. */
  propertyReads: () => number;
}

/** `n` contacts; every 10 share one creation ms (an import batch does), so ties are ordered by id. */
function world(
  n: number,
  opts: { pageSize?: number; topicId?: string; content?: Partial<BroadcastRecord> } = {},
): World {
  const crashes = new CrashPlan();
  const broadcasts = new MemoryFanoutBroadcasts(crashes).put(
    TEAM,
    broadcastRecord({ id: BROADCAST, segment_id: SEGMENT, topic_id: opts.topicId ?? null, ...opts.content }),
  );
  const members = new MemorySegmentMembers(crashes);
  const audience = new MemoryAudienceState();
  for (let i = 0; i < n; i++) {
    members.add(TEAM, SEGMENT, contact(i), 1_000 + Math.floor(i / 10));
    audience.contact(contact(i).email);
  }
  const emails = new MemoryBroadcastEmails(crashes);
  const observer = new RecordingFanoutObserver();
  let mono = 0;
  let propertyReads = 0;
  const ports: FanoutPorts = {
    broadcasts,
    members,
    recipients: audience,
    emails,
    contactProperties: {
      all: async () => {
        propertyReads++;
        return [{ key: 'plan', fallback_value: 'free' }];
      },
    },
    clock: { now: () => NOW, monotonicMs: () => (mono += 5) },
    observer,
    pageSize: opts.pageSize ?? 100,
    logEveryPages: 2,
  };
  return {
    ports,
    broadcasts,
    members,
    audience,
    emails,
    observer,
    crashes,
    propertyReads: () => propertyReads,
  };
}

/** Runs the fan-out again after each crash (as BullMQ retries a stalled or failed job). */
async function runToEnd(w: World, maxRuns = 20) {
  for (let run = 0; run < maxRuns; run++) {
    try {
      return await runBroadcastFanout(job, w.ports);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith('crash:')) throw err;
    }
  }
  throw new Error('the fan-out never ended');
}

describe('runBroadcastFanout', () => {
  it('creates one email per contact in pages, then marks the broadcast sent', async () => {
    const w = world(250);
    const outcome = await runBroadcastFanout(job, w.ports);
    expect(outcome).toEqual({ kind: 'sent' });
    expect(w.emails.created.size).toBe(250);
    expect(w.emails.jobs.size).toBe(250);
    expect(w.emails.calls).toEqual([100, 100, 50]);
    const record = w.broadcasts.get(TEAM, BROADCAST)!;
    expect(record.status).toBe('sent');
    expect(record.counts).toEqual({ total: 250, enqueued: 250, skipped: 0 });
    expect(record.sent_at).toBe(new Date(NOW).toISOString());
    const ids = [...w.emails.created.values()].map((e) => e.emailId);
    expect(ids[0]).toBe(broadcastEmailId(TEAM, BROADCAST, 'c-000000', NOW));
    expect(w.observer.starts).toEqual([false]);
    expect(w.observer.ends[0]!.progress.counts.total).toBe(250);
  });

  it('gives each email its personalised subject and what its placeholders read of the contact', async () => {
    const w = world(3, {
      content: {
        subject: 'Hi {{{contact.first_name|there}}}, on {{{contact.plan}}}',
        html: '<p>{{{contact.last_name|}}} <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a></p>',
      },
    });
    const ada = {
      ...contact(0),
      first_name: 'Ada',
      last_name: 'Lovelace',
      properties: { plan: 'pro', x: 1 },
    };
    w.members.add(TEAM, SEGMENT, ada, 999);
    await runBroadcastFanout(job, w.ports);
    const byTo = new Map([...w.emails.created.values()].map((e) => [e.to, e]));
    expect(byTo.get('user0@example.test')).toMatchObject({
      subject: 'Hi Ada, on pro',
      contactValues: { first_name: 'Ada', last_name: 'Lovelace', properties: { plan: 'pro' } },
    });
    // no name, no plan: the placeholder's fallback, then the definition's (read once per run)
    expect(byTo.get('user1@example.test')).toMatchObject({
      subject: 'Hi there, on free',
      contactValues: { fallbacks: { plan: 'free' } },
    });
    expect(w.propertyReads()).toBe(1);
  });

  it('stores no contact values, and reads no definitions, for content without contact placeholders', async () => {
    const w = world(2, {
      content: { subject: 'News', html: '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">x</a>' },
    });
    await runBroadcastFanout(job, w.ports);
    for (const e of w.emails.created.values())
      expect(e).toMatchObject({ subject: 'News', contactValues: null });
    expect(w.propertyReads()).toBe(0);
  });

  it('derives email ids from team, broadcast, contact and the fan-out start only', () => {
    const id = broadcastEmailId(TEAM, BROADCAST, 'c-1', NOW);
    expect(broadcastEmailId(TEAM, BROADCAST, 'c-1', NOW)).toBe(id);
    expect(broadcastEmailId(TEAM, BROADCAST, 'c-2', NOW)).not.toBe(id);
    expect(broadcastEmailId(TEAM, 'b-2', 'c-1', NOW)).not.toBe(id);
    expect(broadcastEmailId('team-2', BROADCAST, 'c-1', NOW)).not.toBe(id);
    expect(broadcastEmailId(TEAM, BROADCAST, 'c-1', NOW + 1)).not.toBe(id);
  });

  it('skips unsubscribed and suppressed contacts and counts them', async () => {
    const w = world(30, { pageSize: 10 });
    w.audience.contact('user3@example.test', { unsubscribed: true });
    w.audience.suppress('USER7@Example.test');
    w.audience.contact('user25@example.test', { unsubscribed: true });
    await runBroadcastFanout(job, w.ports);
    const sentTo = new Set([...w.emails.created.values()].map((e) => e.to));
    expect(sentTo.size).toBe(27);
    for (const skipped of ['user3@example.test', 'user7@example.test', 'user25@example.test'])
      expect(sentTo.has(skipped)).toBe(false);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({ total: 30, enqueued: 27, skipped: 3 });
  });

  it('with a topic, sends to opted-in contacts only when the default is opt_out', async () => {
    const w = world(5, { topicId: 'topic-1' });
    w.audience.topic('topic-1', 'opt_out', {
      'user1@example.test': 'opt_in',
      'user2@example.test': 'opt_in',
    });
    await runBroadcastFanout(job, w.ports);
    expect([...w.emails.created.values()].map((e) => e.to).sort()).toEqual([
      'user1@example.test',
      'user2@example.test',
    ]);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({ total: 5, enqueued: 2, skipped: 3 });
  });

  it('with an opt_in topic, leaves out only who opted out', async () => {
    const w = world(4, { topicId: 'topic-1' });
    w.audience.topic('topic-1', 'opt_in', { 'user0@example.test': 'opt_out' });
    await runBroadcastFanout(job, w.ports);
    expect(w.emails.created.size).toBe(3);
  });

  it.each([
    ['page', 3],
    ['create', 2],
    ['enqueue', 2],
    ['checkpoint', 2],
    ['checkpoint', 4],
    ['finishFanout', 1],
    ['startFanout', 1],
  ])('resumes after a crash at %s #%i without creating or enqueueing any email twice', async (what, n) => {
    const w = world(450);
    const created: string[] = [];
    const write = w.emails.createAndEnqueue.bind(w.emails);
    w.ports.emails = {
      async createAndEnqueue(teamId, broadcast, emails) {
        const before = new Set(w.emails.created.keys());
        try {
          return await write(teamId, broadcast, emails);
        } finally {
          for (const id of w.emails.created.keys()) if (!before.has(id)) created.push(id);
        }
      },
    };
    w.crashes.at(what, n);
    const outcome = await runToEnd(w);
    expect(outcome).toEqual({ kind: 'sent' });
    expect(created.length).toBe(450);
    expect(new Set(created).size).toBe(450);
    expect(w.emails.jobs.size).toBe(450);
    // every created email has its job: the resumed run redid the page whose jobs were lost
    for (const id of w.emails.created.keys()) expect(w.emails.jobs.has(id)).toBe(true);
    const record = w.broadcasts.get(TEAM, BROADCAST)!;
    expect(record.status).toBe('sent');
    expect(record.counts).toEqual({ total: 450, enqueued: 450, skipped: 0 });
  });

  it('a resumed run says so and starts after the checkpoint', async () => {
    const w = world(300);
    w.crashes.at('page', 3);
    await runToEnd(w);
    expect(w.observer.starts).toEqual([false, true]);
    // the first run did pages 1 and 2; the second only page 3 (+ the empty end)
    expect(w.emails.calls).toEqual([100, 100, 100]);
  });

  it('stops at the checkpoint after a cancel, leaving the rest of the segment unsent', async () => {
    const w = world(1_000);
    const write = w.emails.createAndEnqueue.bind(w.emails);
    let pages = 0;
    w.ports.emails = {
      async createAndEnqueue(teamId, broadcast, emails) {
        if (++pages === 3) w.broadcasts.cancel(TEAM, BROADCAST);
        return write(teamId, broadcast, emails);
      },
    };
    const outcome = await runBroadcastFanout(job, w.ports);
    expect(outcome).toEqual({ kind: 'canceled' });
    expect(w.emails.created.size).toBe(300);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.status).toBe('canceled');
    // a retried job does nothing more
    expect(await runBroadcastFanout(job, w.ports)).toEqual({ kind: 'not_runnable', reason: 'status' });
    expect(w.emails.created.size).toBe(300);
  });

  it('pauses after a checkpoint when asked to stop, and the next run goes on from there', async () => {
    const w = world(500);
    let stop = false;
    const write = w.emails.createAndEnqueue.bind(w.emails);
    w.ports.emails = {
      async createAndEnqueue(teamId, broadcast, emails) {
        if (w.emails.calls.length === 1) stop = true; // shutdown begins during page 2
        return write(teamId, broadcast, emails);
      },
    };
    w.ports.shouldStop = () => stop;
    expect(await runBroadcastFanout(job, w.ports)).toEqual({ kind: 'paused' });
    expect(w.emails.created.size).toBe(200);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.status).toBe('queued');
    stop = false;
    expect(await runBroadcastFanout(job, w.ports)).toEqual({ kind: 'sent' });
    expect(w.emails.created.size).toBe(500);
    expect(w.emails.calls).toEqual([100, 100, 100, 100, 100]);
  });

  it('two runs of one fan-out at once (a job taken for stalled while its run went on): each page counted once', async () => {
    const w = world(1_000);
    // both runs read pages before either checkpoints: the second run starts from the same cursor
    const [a, b] = await Promise.all([runBroadcastFanout(job, w.ports), runBroadcastFanout(job, w.ports)]);
    expect([a.kind, b.kind].sort()).toEqual(['sent', 'superseded']);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({ total: 1_000, enqueued: 1_000, skipped: 0 });
    expect(w.emails.created.size).toBe(1_000);
  });

  it('does nothing for a deleted, canceled or sent broadcast', async () => {
    const gone = world(10);
    gone.broadcasts.records.clear();
    expect(await runBroadcastFanout(job, gone.ports)).toEqual({ kind: 'not_runnable', reason: 'not_found' });
    const canceled = world(10);
    canceled.broadcasts.cancel(TEAM, BROADCAST);
    expect(await runBroadcastFanout(job, canceled.ports)).toEqual({ kind: 'not_runnable', reason: 'status' });
    const sent = world(10);
    await runBroadcastFanout(job, sent.ports);
    expect(await runBroadcastFanout(job, sent.ports)).toEqual({ kind: 'not_runnable', reason: 'status' });
    for (const w of [gone, canceled]) expect(w.emails.created.size).toBe(0);
    expect(sent.emails.created.size).toBe(10);
  });

  it('an empty segment is sent at once', async () => {
    const w = world(0);
    expect(await runBroadcastFanout(job, w.ports)).toEqual({ kind: 'sent' });
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({ total: 0, enqueued: 0, skipped: 0 });
  });

  it('a contact removed from the segment at the cursor does not lose the next ones', async () => {
    const w = world(25, { pageSize: 10 });
    const page = w.members.page.bind(w.members);
    let calls = 0;
    w.ports.members = {
      async page(teamId, segmentId, after, limit) {
        // the cursor's contact (the 10th) leaves the segment between two pages
        if (++calls === 2) w.members.remove(TEAM, SEGMENT, 'c-000009');
        return page(teamId, segmentId, after, limit);
      },
    };
    await runBroadcastFanout(job, w.ports);
    expect(w.emails.created.size).toBe(25);
  });

  it('10,000 contacts in pages of 1,000: every contact once, one page in memory, progress lines', async () => {
    const w = world(10_000, { pageSize: 1_000 });
    const outcome = await runBroadcastFanout(job, w.ports);
    expect(outcome).toEqual({ kind: 'sent' });
    expect(w.emails.created.size).toBe(10_000);
    expect(new Set([...w.emails.created.values()].map((e) => e.contactId)).size).toBe(10_000);
    expect(w.members.maxPage).toBe(1_000);
    expect(w.emails.calls).toEqual(Array(10).fill(1_000));
    expect(w.observer.progressLines.map((p) => p.counts.total)).toEqual([2_000, 4_000, 6_000, 8_000, 10_000]);
    expect(w.observer.progressLines.every((p) => p.contactsPerSecond > 0)).toBe(true);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({
      total: 10_000,
      enqueued: 10_000,
      skipped: 0,
    });
  });
});

describe('runBroadcastFanout with a pacer', () => {
  it('sizes each page after the first by the transactional pressure read before it, and pauses', async () => {
    const w = world(250);
    // pressure before pages 2, 3, 4…: busy, half busy, idle
    const readings = [500, 60];
    const sleeps: number[] = [];
    const paces: string[] = [];
    w.ports.pacer = {
      rule: { idleAt: 10, busyAt: 110, minPageSize: 20, maxDelayMs: 200 },
      pressure: async () => readings.shift() ?? 0,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
    };
    w.ports.observer = Object.assign(w.observer, {
      paced: (p: { state: string; pageSize: number }) => paces.push(`${p.state}:${p.pageSize}`),
    });
    const outcome = await runBroadcastFanout(job, w.ports);
    expect(outcome).toEqual({ kind: 'sent' });
    // 100 (full), 20 (most paced), 60 (halfway from 100 to 20), then full pages again
    expect(w.emails.calls).toEqual([100, 20, 60, 70]);
    expect(paces).toEqual(['paced:20', 'paced:60', 'full:100']);
    expect(sleeps).toEqual([200, 100]);
    expect(w.emails.created.size).toBe(250);
    expect(w.broadcasts.get(TEAM, BROADCAST)!.counts).toEqual({ total: 250, enqueued: 250, skipped: 0 });
  });
});
