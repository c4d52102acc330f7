/**
 * The calls for several emails of one team against the one-email calls. getManyForSend: each
 * email as getForSend reads it. recordEventsMany (several emails' outcomes in one script call):
 * the same emails and events as recordEvents one email at a time, one team each way, must leave
 * the same keys with the same contents — records, timelines and their sequence numbers, the
 * stream, the status and unfinished indexes, the hourly counters, a broadcast's indexes, ended
 * soft-bounce streaks — and give each email the same reply, including an email that is gone and
 * one whose part fails.
 */
import { describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { emailEventsAt, newEmail, storedContent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore, type RecordEventsCall } from './emails.store.js';
import { mailboxKey } from '@petrel/core';

const fx = useStoreRedis('events-many');
const NOW = Date.now();
const clock = { now: () => NOW };

/** Every key of team `teamId` (one slot: one node of a cluster) with its contents, the team's name taken out. */
async function dump(teamId: string): Promise<Record<string, unknown>> {
  const prefix = `${fx.keys.email(teamId, '')}`.replace(/email:$/, '');
  const nodes = fx.redis instanceof Cluster ? fx.redis.nodes('master') : [fx.redis];
  const names = (
    await Promise.all(
      nodes.map(async (node) => {
        const found: string[] = [];
        let cursor = '0';
        do {
          const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
          found.push(...batch);
          cursor = next;
        } while (cursor !== '0');
        return found;
      }),
    )
  ).flat();
  const out: Record<string, unknown> = {};
  for (const key of names.sort()) {
    const type = await fx.redis.type(key);
    const value =
      type === 'hash'
        ? await fx.redis.hgetall(key)
        : type === 'list'
          ? await fx.redis.lrange(key, 0, -1)
          : type === 'zset'
            ? await fx.redis.zrange(key, '0', '-1', 'WITHSCORES')
            : type === 'stream'
              ? (await fx.redis.xrange(key, '-', '+')).map(([, fields]) => fields) // ids are times
              : await fx.redis.get(key);
    const expires = (await fx.redis.pttl(key)) > 0;
    out[key.slice(prefix.length)] = JSON.parse(
      JSON.stringify({ type, value, expires }).replaceAll(teamId, '<team>'),
    );
  }
  return out;
}

/** The same emails, their soft-bounce streaks and a key that breaks one email's write, in team `teamId`. */
async function staged(teamId: string): Promise<{ store: EmailsStore; calls: RecordEventsCall[] }> {
  const store = new EmailsStore(fx.redis, fx.keys, 600_000, { statsRetentionMs: 600_000, clock });
  const { event, item } = emailEventsAt(teamId, NOW);
  const created = new Date(NOW - 1_000);
  await store.stage(
    teamId,
    ['plain', 'twice', 'delayed', 'broken', 'bounced'].map((id) => newEmail(id, event(id, 'email.queued'))),
    created,
  );
  await store.stage(
    teamId,
    [newEmail('bcast', event('bcast', 'email.queued', 'b1'), { broadcastId: 'b1', lane: 'broadcast' })],
    created,
  );
  await fx.redis.set(fx.keys.softBounceStreak(teamId, mailboxKey('b@example.test')), '2');
  // the timeline of `broken` is not a list: its RPUSH fails (WRONGTYPE) after the record's writes
  await fx.redis.set(fx.keys.emailEvents(teamId, 'broken'), 'not a list');
  const delivered = (id: string, broadcastId?: string) => [
    item(id, 'sent', broadcastId),
    item(id, 'delivered', broadcastId),
  ];
  const attempts = { attempts: '1' };
  const calls: RecordEventsCall[] = [
    {
      emailId: 'plain',
      items: delivered('plain'),
      fields: attempts,
      also: { endSoftBounceStreaks: ['b@example.test'] },
    },
    { emailId: 'twice', items: delivered('twice'), fields: attempts },
    { emailId: 'gone', items: delivered('gone'), fields: attempts },
    { emailId: 'broken', items: delivered('broken'), fields: attempts },
    { emailId: 'delayed', items: [item('delayed', 'delivery_delayed')], fields: attempts },
    // the same email again in the same call: numbered after its first part
    { emailId: 'twice', items: [item('twice', 'opened')] },
    {
      emailId: 'bounced',
      items: [item('bounced', 'bounced', undefined, { bounce: { type: 'Permanent', subType: 'General' } })],
      fields: attempts,
    },
    { emailId: 'bcast', items: delivered('bcast', 'b1'), fields: attempts },
  ];
  return { store, calls };
}

describe('EmailsStore.recordEventsMany', () => {
  it('leaves every key and reply as recordEvents one email at a time does, an email gone or failing included', async () => {
    const alone = await staged('alone');
    const replies: unknown[] = [];
    for (const c of alone.calls) {
      replies.push(
        await alone.store.recordEvents('alone', c.emailId, c.items, c.fields, c.also).catch((e: Error) => e),
      );
    }
    const together = await staged('together');
    const many = await together.store.recordEventsMany('together', together.calls);

    // an uncaught script error's message also names the script and its line
    const text = (r: unknown) => (r instanceof Error ? `error: ${r.message.split(' script: ')[0]}` : r);
    expect(many.map(text)).toEqual(replies.map(text));
    expect(many.map(text)).toEqual([
      'moved',
      'moved',
      'missing',
      expect.stringMatching(/^error: WRONGTYPE/),
      'moved',
      'moved',
      'moved',
      'moved',
    ]);
    const after = await dump('together');
    expect(after).toEqual(await dump('alone'));
    // what the comparison covered: the events in order with their numbers, the streak gone
    const timeline = (after['email:twice:events'] as { value: string[] }).value.map((e) => {
      const { type, data } = JSON.parse(e) as { type: string; data: { sequence: number } };
      return `${type} ${data.sequence}`;
    });
    expect(timeline).toEqual(['email.sent 2', 'email.delivered 3', 'email.opened 4']);
    expect(Object.keys(after).some((k) => k.startsWith('soft-bounce:'))).toBe(false);
    expect((after['email:broken'] as { value: Record<string, string> }).value.attempts).toBe('1');
    expect(Object.keys(after)).toEqual(
      expect.arrayContaining(['events', 'email:bcast:events', 'email:delayed:events']),
    );
  });
});

describe('EmailsStore.getManyForSend', () => {
  it('reads each email as getForSend does, in order, null for one that is gone', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, 600_000, { statsRetentionMs: 600_000, clock });
    const { event } = emailEventsAt('reads', NOW);
    await store.stage(
      'reads',
      [
        newEmail('r1', event('r1', 'email.queued')),
        newEmail('r2', event('r2', 'email.queued'), {
          content: storedContent({ attachments: [{ filename: 'a.txt', content: 'aGk=' }] }),
          broadcastId: 'b1',
          lane: 'broadcast',
        }),
      ],
      new Date(NOW),
    );
    const ids = ['r2', 'gone', 'r1'];
    const one = await Promise.all(ids.map((id) => store.getForSend('reads', id)));
    expect(await store.getManyForSend('reads', ids)).toEqual(one);
    expect(one.map((r) => r?.record.id ?? null)).toEqual(['r2', null, 'r1']);
    expect(one[0]!.attachments).toHaveLength(1);
  });
});
