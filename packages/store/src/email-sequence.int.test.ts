/**
 * The per-email `data.sequence` of email events: 1, 2, 3… in the order the scripts record them,
 * on the timeline and on the team's events stream alike — whatever script writes the event
 * (acceptance, the broadcast writer, record, cancel), with concurrent writers, and for a record
 * written before the counter existed. Runs on one server and, in the integration-cluster
 * project, on a Redis Cluster.
 */
import { describe, expect, it } from 'vitest';
import type { EmailEvent, EmailStatus } from '@petrel/contracts';
import { newEmail, useStoreRedis } from './redis.fixture.js';
import { EmailsStore } from './emails.store.js';
import { EVENTS_STREAM_FIELD } from './keys.js';
import { defineScripts } from './scripts.js';
import { SEQUENCE_PLACEHOLDER_END, eventJsonHead, sequencedEventJson } from './email-event-json.js';

const fx = useStoreRedis('seq');

let n = 0;
const ev = (type: EmailEvent['type'], data: Record<string, unknown> = {}): EmailEvent => ({
  id: `ev-${++n}`,
  type,
  created_at: new Date().toISOString(),
  teamId: 'team',
  data: { email_id: 'x', ...data },
});

async function staged(store: EmailsStore, id: string, status: EmailStatus = 'queued'): Promise<void> {
  const event = ev(status === 'scheduled' ? 'email.scheduled' : 'email.queued');
  const email = newEmail(id, event, { status });
  expect(await store.stage('team', [email], new Date())).toBe(1);
}

const sequences = (events: EmailEvent[]) => events.map((e) => e.data.sequence);

async function streamed(emailId: string): Promise<EmailEvent[]> {
  const rows = await fx.redis.xrange(fx.keys.events('team'), '-', '+');
  return rows
    .map(([, f]) => JSON.parse(f[f.indexOf(EVENTS_STREAM_FIELD) + 1]!) as EmailEvent)
    .filter((e) => e.id.startsWith('ev-') && e.data.email_id === emailId);
}

describe('sequencedEventJson', () => {
  it('puts sequence last in data, even when data had one, and keeps the rest as it was', () => {
    const event = ev('email.clicked', { sequence: 9, click: { link: 'https://x.test/}}' } });
    const json = sequencedEventJson(event);
    expect(json.endsWith(SEQUENCE_PLACEHOLDER_END)).toBe(true);
    expect(JSON.parse(json)).toEqual({ ...event, data: { ...event.data, sequence: 0 } });
    expect(JSON.parse(sequencedEventJson(ev('email.sent', {}), 1)).data.sequence).toBe(1);
    // what the scripts complete: the head and `<n>}}`
    expect(JSON.parse(`${eventJsonHead(event)}12}}`)).toEqual({
      ...event,
      data: { ...event.data, sequence: 12 },
    });
  });

  it('writes the same text as rest copies of the event and its data, data last, whatever the member order', () => {
    const restCopies = (event: EmailEvent, sequence: number): string => {
      const { data, ...head } = event;
      const { sequence: _given, ...rest } = data;
      return JSON.stringify({ ...head, data: { ...rest, sequence } });
    };
    const base = ev('email.delivered', { sequence: 3, to: ['a@x.test'] });
    const shapes: EmailEvent[] = [
      base,
      { data: { sequence: 1, email_id: 'y' }, id: 'ev-d', type: 'email.sent', created_at: 'c', teamId: 't' },
      { ...base, data: {} as EmailEvent['data'] },
      { ...base, data: { sequence: 2 } as unknown as EmailEvent['data'] },
      // members JSON leaves out (undefined), integer-like names (written first), nested values
      {
        ...base,
        teamId: undefined,
        data: { z: undefined, '2': 'two', '10': { a: [1, undefined] }, email_id: 'w', sequence: 4 },
      } as unknown as EmailEvent,
    ];
    for (const event of shapes) {
      for (const sequence of [0, 7])
        expect(sequencedEventJson(event, sequence)).toBe(restCopies(event, sequence));
    }
  });
});

describe('per-email sequence numbers', () => {
  it('numbers acceptance, record (several at once), and later events 1..n on the timeline and the stream', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await staged(store, 'a1');
    await store.recordEvents('team', 'a1', [
      { status: 'sent', event: ev('email.sent', { email_id: 'a1' }) },
      { status: 'delivered', event: ev('email.delivered', { email_id: 'a1' }) },
    ]);
    await store.recordEvent('team', 'a1', 'opened', ev('email.opened', { email_id: 'a1' }));
    await store.recordEvent('team', 'a1', 'clicked', ev('email.clicked', { email_id: 'a1', click: {} }));
    const timeline = await store.events('team', 'a1');
    expect(timeline.map((e) => e.type)).toEqual([
      'email.queued',
      'email.sent',
      'email.delivered',
      'email.opened',
      'email.clicked',
    ]);
    expect(sequences(timeline)).toEqual([1, 2, 3, 4, 5]);
    // the stream carries the same events with the same numbers (the queued one is timeline-only)
    expect(sequences(await streamed('a1'))).toEqual([2, 3, 4, 5]);
    expect((await streamed('a1'))[3]).toEqual(timeline[4]);
  });

  it('gives concurrent writers distinct numbers in stream order', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await staged(store, 'c1');
    await Promise.all(
      Array.from({ length: 50 }, () =>
        store.recordEvent('team', 'c1', 'opened', ev('email.opened', { email_id: 'c1' })),
      ),
    );
    const timeline = await store.events('team', 'c1');
    expect(sequences(timeline)).toEqual(Array.from({ length: 51 }, (_, i) => i + 1));
    expect(sequences(await streamed('c1'))).toEqual(Array.from({ length: 50 }, (_, i) => i + 2));
  });

  it('numbers a cancel and a reschedule after the scheduled event', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await staged(store, 's1', 'scheduled');
    await store.recordEvent('team', 's1', 'scheduled', {
      ...ev('email.rescheduled' as EmailEvent['type'], { email_id: 's1' }),
    });
    expect(await store.cancelScheduled('team', 's1', ev('email.canceled', { email_id: 's1' }))).toBe(
      'canceled',
    );
    expect(sequences(await store.events('team', 's1'))).toEqual([1, 2, 3]);
    // nothing numbered for a write that did not happen
    expect(await store.cancelScheduled('team', 's1', ev('email.canceled'))).toBe('not_scheduled');
    expect(await store.recordEvent('team', 'gone', 'sent', ev('email.sent'))).toBe('missing');
    expect(await fx.redis.exists(fx.keys.email('team', 'gone'))).toBe(0);
  });

  it('continues after the timeline of a record written before the counter existed', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await fx.redis.hset(fx.keys.email('team', 'old'), { id: 'old', status: 'queued', status_rank: '1' });
    await fx.redis.rpush(fx.keys.emailEvents('team', 'old'), JSON.stringify(ev('email.queued')));
    await store.recordEvents('team', 'old', [
      { status: 'sent', event: ev('email.sent', { email_id: 'old' }) },
      { status: 'delivered', event: ev('email.delivered', { email_id: 'old' }) },
    ]);
    await store.recordEvent('team', 'old', 'opened', ev('email.opened', { email_id: 'old' }));
    expect(sequences(await store.events('team', 'old'))).toEqual([undefined, 2, 3, 4]);

    await fx.redis.hset(fx.keys.email('team', 'old2'), { id: 'old2', status: 'scheduled', status_rank: '0' });
    await fx.redis.rpush(fx.keys.emailEvents('team', 'old2'), JSON.stringify(ev('email.scheduled')));
    await store.cancelScheduled('team', 'old2', ev('email.canceled'));
    expect(sequences(await store.events('team', 'old2'))).toEqual([undefined, 2]);
  });

  it('reads a record of the previous layout (first event at the head of its list) the same way', async () => {
    // what acceptance wrote before the first event moved into the record: the counter at 1, the
    // numbered first event as the list's only entry, both expiring after the retention
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const [record, list] = [fx.keys.email('team', 'prev'), fx.keys.emailEvents('team', 'prev')];
    const first = ev('email.queued', { email_id: 'prev' });
    await fx.redis.hset(record, {
      id: 'prev',
      team_id: 'team',
      status: 'queued',
      status_rank: '1',
      seq: '1',
    });
    await fx.redis.hset(record, { content: '{}', created_ms: String(Date.now()), lane: 'send' });
    await fx.redis.rpush(list, sequencedEventJson(first, 1));
    await fx.redis.pexpire(record, 60_000);
    await fx.redis.pexpire(list, 30_000);
    const before = await store.events('team', 'prev');
    expect(before).toEqual([{ ...first, data: { ...first.data, sequence: 1 } }]);
    await store.recordEvents('team', 'prev', [
      { status: 'sent', event: ev('email.sent', { email_id: 'prev' }) },
      { status: 'delivered', event: ev('email.delivered', { email_id: 'prev' }) },
    ]);
    const after = await store.events('team', 'prev');
    expect(after.map((e) => [e.type, e.data.sequence])).toEqual([
      ['email.queued', 1],
      ['email.sent', 2],
      ['email.delivered', 3],
    ]);
    expect((await store.getWithEvents('team', 'prev'))!.events).toEqual(after);
    // the list it had keeps its own expiry (not the record's)
    expect(await fx.redis.pttl(list)).toBeLessThanOrEqual(30_000);
    // and an email accepted now reads the same: first event from the record, then the list
    await staged(store, 'now');
    await store.recordEvents('team', 'now', [
      { status: 'sent', event: ev('email.sent', { email_id: 'now' }) },
      { status: 'delivered', event: ev('email.delivered', { email_id: 'now' }) },
    ]);
    expect((await store.events('team', 'now')).map((e) => [e.type, e.data.sequence])).toEqual(
      after.map((e) => [e.type, e.data.sequence]),
    );
    expect(await fx.redis.llen(fx.keys.emailEvents('team', 'now'))).toBe(2);
  });

  it('starts a broadcast email at 1 (petrelCreateBroadcastEmails sets the counter)', async () => {
    const redis = defineScripts(fx.redis);
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const first = JSON.stringify(ev('email.queued', { email_id: 'b1', broadcast_id: 'bc', sequence: 1 }));
    const keys = [fx.keys.emails('team'), fx.keys.email('team', 'b1'), fx.keys.emailEvents('team', 'b1')];
    await redis.petrelCreateBroadcastEmails(
      keys.length,
      ...keys,
      ...[1, Date.now(), 60_000, '{"to":', '}', 1, 'status', 'queued'],
      ...['b1', 'contact', '<b1@x>', '["c@example.test"]', first, ''],
    );
    await store.recordEvent('team', 'b1', 'sent', ev('email.sent', { email_id: 'b1' }));
    expect(sequences(await store.events('team', 'b1'))).toEqual([1, 2]);
  });
});
