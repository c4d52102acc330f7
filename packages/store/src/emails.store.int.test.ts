import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import { newEmail, storedContent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore, statusRank } from './emails.store.js';
import { sequencedEventJson } from './email-event-json.js';
import { IdempotencyStore, requestFingerprint } from './idempotency.store.js';
import { execAll, transaction } from './scripts.js';

const fx = useStoreRedis('store');

const ev = (type: EmailEvent['type']): EmailEvent => ({
  id: type,
  type,
  created_at: new Date().toISOString(),
  teamId: 't',
  data: {},
});

describe('EmailsStore', () => {
  it('creates records only once (an idempotent retry leaves the first untouched)', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const email = newEmail('e1', ev('email.queued'));
    expect(await store.stage('t', [email], new Date())).toBe(1);
    await store.recordEvent('t', 'e1', 'delivered', ev('email.delivered'));
    expect(
      await store.stage('t', [{ ...email, content: storedContent({ subject: 'changed' }) }], new Date()),
    ).toBe(0);
    const rec = await store.get('t', 'e1');
    expect(rec).toMatchObject({ status: 'delivered', content: { subject: 's' } });
    expect((await store.list('t', { limit: 10 }))!.items.map((r) => r.id)).toEqual(['e1']);
  });

  it('moves the status forward only, even when events arrive out of order', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await store.stage('t', [newEmail('e2', ev('email.queued'))], new Date());
    expect(await store.recordEvent('t', 'e2', 'delivered', ev('email.delivered'))).toBe('moved');
    expect(await store.recordEvent('t', 'e2', 'delivery_delayed', ev('email.delivery_delayed'))).toBe('kept');
    expect(await store.recordEvent('t', 'e2', 'sent', ev('email.sent'))).toBe('kept');
    expect((await store.get('t', 'e2'))!.status).toBe('delivered');
    expect((await store.events('t', 'e2')).map((e) => e.type)).toEqual([
      'email.queued',
      'email.delivered',
      'email.delivery_delayed',
      'email.sent',
    ]);
    expect(await store.recordEvent('t', 'missing', 'sent', ev('email.sent'))).toBe('missing');
    // Every event is also published for the webhook dispatcher, on the team's own stream.
    expect(await fx.redis.xlen(fx.keys.events('t'))).toBe(4); // 1 from the previous test + 3 here
  });

  it('records several events in one call: all appended and published in order, fields set, status to the highest', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    await store.stage('t', [newEmail('e5', ev('email.queued'))], new Date());
    const before = await fx.redis.xlen(fx.keys.events('t'));
    const res = await store.recordEvents(
      't',
      'e5',
      [
        { status: 'sent', event: ev('email.sent') },
        { status: 'delivered', event: ev('email.delivered') },
      ],
      { attempts: '1' },
    );
    expect(res).toBe('moved');
    expect(await store.get('t', 'e5')).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await store.events('t', 'e5')).map((e) => e.type)).toEqual([
      'email.queued',
      'email.sent',
      'email.delivered',
    ]);
    const published = await fx.redis.xrange(fx.keys.events('t'), '-', '+');
    expect(published.slice(before).map(([, f]) => (JSON.parse(f[1]!) as EmailEvent).type)).toEqual([
      'email.sent',
      'email.delivered',
    ]);
    // a late lower-ranked pair moves nothing back, but is still recorded
    expect(await store.recordEvents('t', 'e5', [{ status: 'sent', event: ev('email.sent') }])).toBe('kept');
    expect((await store.get('t', 'e5'))!.status).toBe('delivered');
    expect(await store.recordEvents('t', 'nope', [{ status: 'sent', event: ev('email.sent') }])).toBe(
      'missing',
    );
  });

  it('creates a mixed request: every record with its own fields, shared fields, one TTL each, indexed', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const at = new Date('2026-11-21T10:00:00.000Z');
    const created = await store.stage(
      'mix',
      [
        newEmail('m1', ev('email.queued')),
        newEmail('m2', ev('email.scheduled'), {
          content: storedContent({
            scheduled_at: '2026-11-22T10:00:00.000Z',
            attachments: [{ filename: 'a.txt', content: 'eA==' }],
          }),
          status: 'scheduled',
          lane: 'broadcast',
          dueMs: Date.parse('2026-11-22T10:00:00.000Z'),
          template: { id: 'tpl', versionId: 'v1' },
          broadcastId: 'b1',
        }),
      ],
      at,
    );
    expect(created).toBe(2);
    const m1 = await store.get('mix', 'm1');
    expect(m1).toMatchObject({
      id: 'm1',
      teamId: 'mix',
      createdAt: at.toISOString(),
      createdMs: at.getTime(),
      status: 'queued',
      lane: 'send',
      attempts: 0,
      template: null,
      broadcastId: null,
      hasAttachments: false,
      scheduledAt: null,
    });
    const m2 = await store.getForSend('mix', 'm2');
    expect(m2!.record).toMatchObject({
      status: 'scheduled',
      lane: 'broadcast',
      template: { id: 'tpl', versionId: 'v1' },
      broadcastId: 'b1',
      scheduledAt: '2026-11-22T10:00:00.000Z',
      hasAttachments: true,
    });
    expect(m2!.attachments).toEqual([{ filename: 'a.txt', content: 'eA==' }]);
    for (const id of ['m1', 'm2']) {
      expect(await fx.redis.pttl(fx.keys.email('mix', id))).toBeGreaterThan(50_000);
      // one key per email: the first event is in the record, no timeline list yet
      expect(await fx.redis.exists(fx.keys.emailEvents('mix', id))).toBe(0);
    }
    expect((await store.events('mix', 'm2')).map((e) => e.type)).toEqual(['email.scheduled']);
    // the first event appended creates the list, expiring with the record
    await store.recordEvent('mix', 'm1', 'sent', ev('email.sent'));
    await store.cancelScheduled('mix', 'm2', ev('email.canceled'));
    for (const id of ['m1', 'm2']) {
      const [record, timeline] = await Promise.all([
        fx.redis.pttl(fx.keys.email('mix', id)),
        fx.redis.pttl(fx.keys.emailEvents('mix', id)),
      ]);
      expect(timeline).toBeGreaterThan(50_000);
      expect(timeline).toBeLessThanOrEqual(record + 1_000);
    }
    expect((await store.getWithEvents('mix', 'm2'))!.events.map((e) => e.type)).toEqual([
      'email.scheduled',
      'email.canceled',
    ]);
    expect(await fx.redis.zrange(fx.keys.emails('mix'), '0', '-1', 'WITHSCORES')).toEqual([
      'm1',
      String(at.getTime()),
      'm2',
      String(at.getTime()),
    ]);
  });

  it('writes each record field for field, whether the request shares a value or each email has its own; a partly staged request creates only the missing records', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const at = new Date('2026-11-21T10:00:00.000Z');
    const due = Date.parse('2026-11-22T10:00:00.000Z');
    const { attachments: _none, ...plain } = storedContent();
    const later = storedContent({
      from: 'B <b@other.test>',
      scheduled_at: '2026-11-22T10:00:00.000Z',
      attachments: [{ filename: 'a.txt', content: 'eA==' }],
    });
    const { attachments: _one, ...laterPlain } = later;
    const events = Object.fromEntries(
      ['g1', 'g2', 'x1', 'x2', 'x3', 'y1', 'y2', 'y3'].map((id) => [
        id,
        { ...ev('email.queued'), id: `ev-${id}` },
      ]),
    );
    // the fields every record has, with this test's own values
    const record = (id: string, teamId: string, over: Record<string, string> = {}) => ({
      id,
      team_id: teamId,
      created_at: at.toISOString(),
      created_ms: String(at.getTime()),
      attempts: '0',
      seq: '1',
      status: 'queued',
      status_rank: String(statusRank('queued')),
      lane: 'send',
      message_id: `<${id}@x.test>`,
      content: JSON.stringify(plain),
      scheduled_at: '',
      from_domain: 'acme.test',
      first_event: sequencedEventJson(events[id]!, 1),
      ...over,
    });
    const hash = (teamId: string, id: string) => fx.redis.hgetall(fx.keys.email(teamId, id));

    // every value but the ids, Message-IDs and events the same: a group job's request
    const g = ['g1', 'g2'].map((id) => newEmail(id, events[id]!, { group: 'g1' }));
    expect(
      await store.stage('same', g, at, [{ lane: 'send', emailId: 'g1', dueMs: 0, emailIds: ['g1', 'g2'] }]),
    ).toBe(2);
    for (const id of ['g1', 'g2'])
      expect(await hash('same', id)).toEqual(record(id, 'same', { send_group: 'g1' }));
    expect(await fx.redis.zrange(fx.keys.outbox('same'), '0', '-1', 'WITHSCORES')).toEqual([
      'send:0:g1,g2',
      String(at.getTime()),
    ]);

    // each its own status, sending domain, schedule, group membership, lane and optional fields
    const x = [
      newEmail('x1', events.x1!, { group: 'x1' }),
      newEmail('x2', events.x2!, { group: 'x1', content: storedContent({ from: 'C <c@third.test>' }) }),
      newEmail('x3', events.x3!, {
        content: later,
        status: 'scheduled',
        lane: 'broadcast',
        dueMs: due,
        template: { id: 'tpl', versionId: 'v1' },
        broadcastId: 'b1',
      }),
    ];
    expect(await store.stage('own', x, at)).toBe(3);
    expect(await hash('own', 'x1')).toEqual(record('x1', 'own', { send_group: 'x1' }));
    expect(await hash('own', 'x2')).toEqual(
      record('x2', 'own', {
        send_group: 'x1',
        content: JSON.stringify({ ...plain, from: 'C <c@third.test>' }),
        from_domain: 'third.test',
      }),
    );
    expect(await hash('own', 'x3')).toEqual(
      record('x3', 'own', {
        status: 'scheduled',
        status_rank: String(statusRank('scheduled')),
        lane: 'broadcast',
        content: JSON.stringify(laterPlain),
        scheduled_at: '2026-11-22T10:00:00.000Z',
        from_domain: 'other.test',
        attachments: JSON.stringify(later.attachments),
        template_id: 'tpl',
        template_version_id: 'v1',
        broadcast_id: 'b1',
      }),
    );
    // without an outbox of group jobs, one entry per email: its lane, when it is due, its id
    expect(await fx.redis.zrange(fx.keys.outbox('own'), '0', '-1')).toEqual([
      'broadcast:' + due + ':x3',
      'send:0:x1',
      'send:0:x2',
    ]);
    // the watchdog's indexes: each email in its lane's, scored when its job is due (or created)
    expect(await fx.redis.zrange(fx.keys.unfinishedEmails('own', 'send'), '0', '-1', 'WITHSCORES')).toEqual([
      'x1',
      String(at.getTime()),
      'x2',
      String(at.getTime()),
    ]);
    expect(
      await fx.redis.zrange(fx.keys.unfinishedEmails('own', 'broadcast'), '0', '-1', 'WITHSCORES'),
    ).toEqual(['x3', String(due)]);

    // a retry whose first attempt wrote y1 only (its status moved since): y2 and y3 are created,
    // y1 is left as it is, and every email has its outbox entry again
    const y = ['y1', 'y2', 'y3'].map((id) => newEmail(id, events[id]!, { group: 'y1' }));
    const outbox = [{ lane: 'send' as const, emailId: 'y1', dueMs: 0, emailIds: ['y1', 'y2', 'y3'] }];
    expect(await store.stage('retry', [y[0]!], at, outbox)).toBe(1);
    await store.recordEvent('retry', 'y1', 'delivered', ev('email.delivered'));
    const y1 = await hash('retry', 'y1');
    await fx.redis.del(fx.keys.outbox('retry'));
    expect(await store.stage('retry', y, at, outbox)).toBe(2);
    expect(await hash('retry', 'y1')).toEqual(y1);
    expect(y1).toMatchObject({ status: 'delivered' });
    for (const id of ['y2', 'y3'])
      expect(await hash('retry', id)).toEqual(record(id, 'retry', { send_group: 'y1' }));
    expect(await fx.redis.zrange(fx.keys.outbox('retry'), '0', '-1')).toEqual(['send:0:y1,y2,y3']);
    expect(await fx.redis.zrange(fx.keys.emails('retry'), '0', '-1')).toEqual(['y1', 'y2', 'y3']);
  });

  it('cancels only scheduled emails', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const scheduled = { status: 'scheduled' as const, dueMs: Date.now() + 60_000 };
    await store.stage('t', [newEmail('e3', ev('email.scheduled'), scheduled)], new Date());
    expect(await store.cancelScheduled('t', 'e3', ev('email.canceled'))).toBe('canceled');
    expect(await store.cancelScheduled('t', 'e3', ev('email.canceled'))).toBe('not_scheduled');
    expect(await store.cancelScheduled('t', 'nope', ev('email.canceled'))).toBe('missing');
  });

  it('trims listing entries created before the cutoff, keeping the rest', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 60_000, { statsRetentionMs: 60_000 });
    const index = fx.keys.emails('trim');
    await fx.redis.zadd(index, '1000', 'old', '2000', 'edge', '3000', 'new');
    expect(await store.trimExpired('trim', 2_000)).toBe(1);
    expect(await fx.redis.zrange(index, 0, '-1')).toEqual(['edge', 'new']);
    expect(await store.trimExpired('trim', 2_000)).toBe(0);
    expect(await store.trimExpired('no-such-team', 2_000)).toBe(0);
  });
});

describe('IdempotencyStore', () => {
  it('claims, detects mismatch and in-flight, replays, and lets an expired lock be taken over with the same start', async () => {
    const store = new IdempotencyStore(fx.redis, fx.keys, 1_000);
    const fp = requestFingerprint('POST', '/emails', { b: 1, a: 2 });
    expect(fp).toBe(requestFingerprint('POST', '/emails', { a: 2, b: 1 })); // key order does not matter
    const first = await store.claim('t', 'k1', fp, 10_000);
    expect(first.outcome).toBe('proceed');
    expect((await store.claim('t', 'k1', 'other', 10_001)).outcome).toBe('mismatch');
    expect((await store.claim('t', 'k1', fp, 10_002)).outcome).toBe('in_flight');
    const takeover = await store.claim('t', 'k1', fp, 11_500);
    expect(takeover).toMatchObject({ outcome: 'proceed', startedMs: 10_000 });
    const owner = takeover.outcome === 'proceed' ? takeover.owner : '';
    const multi = transaction(fx.redis, 'completion');
    store.completeIn(multi, { key: store.redisKey('t', 'k1'), owner }, 200, '{"id":"x"}');
    await execAll(multi);
    expect(await store.claim('t', 'k1', fp, 11_600)).toEqual({
      outcome: 'replay',
      status: 200,
      body: '{"id":"x"}',
    });
    // Another team's identical key is independent.
    expect((await store.claim('t2', 'k1', fp, 11_600)).outcome).toBe('proceed');
  });
});
