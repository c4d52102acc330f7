import { describe, expect, it } from 'vitest';
import type { SendLane } from '@petrel/contracts';
import { newEmail as queuedEmail, storedEvent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore, type NewEmail } from './emails.store.js';
import { WatchdogStore } from './watchdog.store.js';
import { defineScripts } from './scripts.js';

const fx = useStoreRedis('watchdog');

const ev = storedEvent;
const newEmail = (id: string, over: Partial<NewEmail> = {}): NewEmail =>
  queuedEmail(id, ev('email.queued'), over);

function stores() {
  const emails = new EmailsStore(fx.redis, fx.keys, 600_000, { statsRetentionMs: 600_000 });
  return { emails, watchdog: new WatchdogStore(fx.redis, fx.keys, emails) };
}

const indexed = async (team: string, lane: SendLane) =>
  fx.redis.zrange(fx.keys.unfinishedEmails(team, lane), '0', '-1', 'WITHSCORES');

describe('the unfinished index, kept by the email scripts', () => {
  it('acceptance enters each new email under its due time; sent (or later) and cancel remove it', async () => {
    const { emails } = stores();
    const at = new Date(1_800_000_000_000);
    await emails.stage(
      'a',
      [
        newEmail('now'),
        newEmail('later', { status: 'scheduled', dueMs: at.getTime() + 60_000 }),
        newEmail('bulk', { lane: 'broadcast' }),
      ],
      at,
    );
    expect(await indexed('a', 'send')).toEqual([
      'now',
      String(at.getTime()),
      'later',
      String(at.getTime() + 60_000),
    ]);
    expect(await indexed('a', 'broadcast')).toEqual(['bulk', String(at.getTime())]);

    // a reschedule moves the entry
    await emails.setFields('a', 'later', { scheduled_at: new Date(at.getTime() + 120_000).toISOString() });
    expect(await fx.redis.zscore(fx.keys.unfinishedEmails('a', 'send'), 'later')).toBe(
      String(at.getTime() + 120_000),
    );
    expect(await fx.redis.zscore(fx.keys.unfinishedEmails('a', 'broadcast'), 'later')).toBeNull();

    // a retried acceptance leaves an email that moved on alone
    await emails.recordEvent('a', 'now', 'delivery_delayed', ev('email.delivery_delayed'));
    expect(await fx.redis.zscore(fx.keys.unfinishedEmails('a', 'send'), 'now')).not.toBeNull();
    await emails.recordEvents('a', 'now', [
      { status: 'sent', event: ev('email.sent') },
      { status: 'delivered', event: ev('email.delivered') },
    ]);
    await emails.stage('a', [newEmail('now')], at);
    expect(await emails.cancelScheduled('a', 'later', ev('email.canceled'))).toBe('canceled');
    await emails.recordEvent('a', 'bulk', 'failed', ev('email.failed'));
    expect(await indexed('a', 'send')).toEqual([]);
    expect(await indexed('a', 'broadcast')).toEqual([]);
  });
});

describe('the unfinished index of a broadcast fan-out', () => {
  it('petrelCreateBroadcastEmails enters each new email (an existing one is left alone)', async () => {
    const redis = defineScripts(fx.redis);
    const created = 1_800_000_000_000;
    const keys = [fx.keys.emails('f'), fx.keys.email('f', 'f1'), fx.keys.emailEvents('f', 'f1')];
    const call = () =>
      redis.petrelCreateBroadcastEmails(
        keys.length + 1,
        ...keys,
        fx.keys.unfinishedEmails('f', 'broadcast'),
        ...[1, created, 60_000, '{"to":', '}', 1, 'status', 'queued'],
        ...['f1', 'contact', '<f1@x>', '["c@example.test"]', JSON.stringify(ev('email.queued')), ''],
      );
    expect(await call()).toBe(1);
    expect(await call()).toBe(0);
    expect(await indexed('f', 'broadcast')).toEqual(['f1', String(created)]);
  });
});

describe('WatchdogStore', () => {
  it('reads the oldest and the overdue entries, reindexes, forgets', async () => {
    const { emails, watchdog } = stores();
    const t0 = 1_800_000_000_000;
    await emails.stage('b', [newEmail('b1')], new Date(t0));
    await emails.stage('b', [newEmail('b2')], new Date(t0 + 1000));
    await emails.stage('b', [newEmail('b3')], new Date(t0 + 2000));
    expect(await watchdog.oldest('b', 'send')).toBe(t0);
    expect(await watchdog.oldest('b', 'broadcast')).toBeNull();
    expect(await watchdog.overdue('b', 'send', t0 + 2000, 10)).toEqual([
      { emailId: 'b1', dueMs: t0 },
      { emailId: 'b2', dueMs: t0 + 1000 },
    ]);
    expect(await watchdog.overdue('b', 'send', t0 + 5000, 1)).toEqual([{ emailId: 'b1', dueMs: t0 }]);
    await watchdog.reindex('b', 'send', 'b1', t0 + 9000);
    await watchdog.reindex('b', 'send', 'not-indexed', t0);
    await watchdog.forget('b', 'send', 'b2');
    expect(await indexed('b', 'send')).toEqual(['b3', String(t0 + 2000), 'b1', String(t0 + 9000)]);
  });

  it('marks a re-enqueue once, never on a record that is gone, and records the failure', async () => {
    const { emails, watchdog } = stores();
    await emails.stage('c', [newEmail('c1')], new Date());
    expect(await watchdog.markRequeued('c', 'c1', 123)).toBe(true);
    expect(await watchdog.markRequeued('c', 'c1', 456)).toBe(false);
    expect(await watchdog.get('c', 'c1')).toMatchObject({
      id: 'c1',
      status: 'queued',
      lane: 'send',
      requeuedMs: 123,
    });
    await watchdog.unmarkRequeued('c', 'c1');
    expect((await watchdog.get('c', 'c1'))?.requeuedMs).toBeNull();
    expect(await watchdog.markRequeued('c', 'gone', 1)).toBe(false);
    expect(await fx.redis.exists(fx.keys.email('c', 'gone'))).toBe(0);
    expect(await watchdog.get('c', 'gone')).toBeNull();

    expect(await watchdog.recordEvent('c', 'c1', 'failed', ev('email.failed'))).toBe('moved');
    expect(await indexed('c', 'send')).toEqual([]);
  });

  it('finds contact imports still queued', async () => {
    const { watchdog } = stores();
    const t0 = Date.now();
    for (const [id, status, ms] of [
      ['i1', 'queued', t0 - 60_000],
      ['i2', 'in_progress', t0 - 60_000],
      ['i3', 'queued', t0],
    ] as const) {
      await fx.redis.hset(fx.keys.contactImport('d', id), { id, status });
      await fx.redis.zadd(fx.keys.contactImports('d'), ms, id);
    }
    expect(await watchdog.queuedImportsBefore('d', t0 - 1000)).toEqual(['i1']);
  });
});
