/**
 * The broadcast protection counters (core broadcasts/protection.ts) are written with the events,
 * by petrelRecordEmailEvents: a broadcast email's `email.sent`, Permanent `email.bounced` and
 * `email.complained` add to its broadcast's record, which BroadcastsStore.protectionCounts reads
 * (no scan of the emails). A Temporary bounce, a plain email's events and an event of a
 * broadcast that no longer exists add nothing (no record is recreated by a counter).
 */
import { describe, expect, it } from 'vitest';
import { emailEventsAt, newEmail, storedContent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore } from './emails.store.js';
import { BroadcastsStore } from './broadcasts.store.js';

const fx = useStoreRedis('protection');
const NOW = Date.now();
const TEAM = 'team-protection';

const { event, item } = emailEventsAt(TEAM, NOW);

function email(id: string, broadcastId?: string) {
  return newEmail(id, event(id, 'email.queued', broadcastId), {
    content: storedContent({ from: 'news@acme.test', to: [`${id}@example.test`] }),
    lane: 'broadcast',
    ...(broadcastId && { broadcastId }),
  });
}

const permanent = { bounce: { type: 'Permanent', subType: 'General', message: '550' } };
const temporary = { bounce: { type: 'Temporary', subType: 'RetriesExhausted', message: '451' } };

describe('broadcast protection counters', () => {
  it('count sent, hard-bounced and complained emails of a broadcast as their events are recorded', async () => {
    const emails = new EmailsStore(fx.redis, fx.keys, 3_600_000, { statsRetentionMs: 3_600_000 });
    const broadcasts = new BroadcastsStore(fx.redis, fx.keys);
    const b = await broadcasts.create(TEAM, {
      name: null,
      segment_id: '0198a0a0-0000-7000-8000-000000000001',
      from: 'news@acme.test',
      subject: 's',
      reply_to: null,
      html: '<p>x</p>',
      text: null,
      preview_text: null,
      topic_id: null,
    });
    const ids = Array.from({ length: 5 }, (_, i) => `0190a1b2-0000-7000-8000-00000000010${i}`);
    await emails.stage(
      TEAM,
      [...ids.slice(0, 4).map((id) => email(id, b.id)), email(ids[4]!)],
      new Date(NOW),
    );

    await emails.recordEvents(TEAM, ids[0]!, [item(ids[0]!, 'sent', b.id), item(ids[0]!, 'delivered', b.id)]);
    await emails.recordEvents(TEAM, ids[1]!, [
      item(ids[1]!, 'sent', b.id),
      item(ids[1]!, 'complained', b.id),
    ]);
    await emails.recordEvents(TEAM, ids[2]!, [item(ids[2]!, 'bounced', b.id, permanent)]);
    await emails.recordEvents(TEAM, ids[3]!, [item(ids[3]!, 'bounced', b.id, temporary)]);
    // a plain email's events count for no broadcast
    await emails.recordEvents(TEAM, ids[4]!, [item(ids[4]!, 'sent'), item(ids[4]!, 'complained')]);

    expect(await broadcasts.protectionCounts(TEAM, b.id)).toEqual({ sent: 2, hardBounced: 1, complained: 1 });
  });

  it('an event of a broadcast whose record is gone recreates nothing', async () => {
    const emails = new EmailsStore(fx.redis, fx.keys, 3_600_000, { statsRetentionMs: 3_600_000 });
    const gone = '0190a1b2-0000-7000-8000-0000000002ff';
    const id = '0190a1b2-0000-7000-8000-000000000201';
    await emails.stage(TEAM, [email(id, gone)], new Date(NOW));
    await emails.recordEvents(TEAM, id, [item(id, 'sent', gone), item(id, 'complained', gone)]);
    expect(await fx.redis.exists(fx.keys.broadcast(TEAM, gone))).toBe(0);
    const broadcasts = new BroadcastsStore(fx.redis, fx.keys);
    expect(await broadcasts.protectionCounts(TEAM, gone)).toEqual({ sent: 0, hardBounced: 0, complained: 0 });
  });
});
