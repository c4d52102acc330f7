import { describe, expect, it } from 'vitest';
import { parseRecipientsQuery } from '@petrel/core';
import { emailEventsAt, newEmail, storedContent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore } from './emails.store.js';
import { EmailMetricsStore } from './email-metrics.store.js';
import { BroadcastAnalyticsStore } from './broadcast-analytics.store.js';
import { HOUR_MS } from './email-stats.js';

const fx = useStoreRedis('metrics');

// now: the hourly hashes expire a retention after their hour, in real time
const NOW = Date.now();
const HOUR = Math.floor(NOW / HOUR_MS) * HOUR_MS;
const BROADCAST = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

function email(id: string, from: string, broadcastId?: string) {
  return newEmail(id, ev(id, 'email.queued', broadcastId), {
    content: storedContent({ from, to: [`${id}@example.test`] }),
    ...(broadcastId && { broadcastId }),
  });
}
const { event: ev, item } = emailEventsAt('t', NOW);
/** The store under test, its clock at NOW (the hour the counters are read in). */
const emailsStore = () =>
  new EmailsStore(fx.redis, fx.keys, 3_600_000, { statsRetentionMs: 3_600_000, clock: { now: () => NOW } });

describe('email metrics counters', () => {
  it('counts events per team, sending domain and broadcast in the hour they are recorded, and indexes a broadcast’s recipients and links', async () => {
    const team = 'team-counts';
    const emails = emailsStore();
    const ids = [
      '0190a1b2-0000-7000-8000-000000000001',
      '0190a1b2-0000-7000-8000-000000000002',
      '0190a1b2-0000-7000-8000-000000000003',
    ];
    await emails.stage(team, [email(ids[0]!, 'A <a@One.test>'), email(ids[1]!, 'b@two.test')], new Date(NOW));
    await emails.stage(team, [email(ids[2]!, 'c@one.test', BROADCAST)], new Date(NOW));
    for (const id of ids)
      await emails.recordEvents(team, id, [
        item(id, 'sent', id === ids[2] ? BROADCAST : undefined),
        item(id, 'delivered', id === ids[2] ? BROADCAST : undefined),
      ]);
    await emails.recordEvents(team, ids[1]!, [
      item(ids[1]!, 'bounced', undefined, { bounce: { type: 'Permanent' } }),
    ]);
    const link = 'https://shop.test/a?b=1';
    for (let i = 0; i < 3; i++) {
      await emails.recordEvents(team, ids[2]!, [item(ids[2]!, 'opened', BROADCAST)]);
      await emails.recordEvents(team, ids[2]!, [item(ids[2]!, 'clicked', BROADCAST, { click: { link } })]);
    }
    // a record that is gone counts nothing
    await emails.recordEvents(team, 'missing', [item('missing', 'sent')]);

    const metrics = new EmailMetricsStore(fx.redis, fx.keys, 3_600_000);
    const [team1] = await metrics.counters.read(team, [HOUR], 'team');
    expect(team1!.counts).toEqual({
      received: 3,
      sent: 3,
      delivered: 3,
      bounced: 1,
      bounced_permanent: 1,
      opened: 3,
      unique_opened: 1,
      clicked: 3,
      unique_clicked: 1,
    });
    const byDomain = await metrics.counters.read(team, [HOUR], 'domain');
    expect(Object.fromEntries(byDomain.map((c) => [c.domain, c.counts.delivered]))).toEqual({
      'one.test': 2,
      'two.test': 1,
    });
    const byBroadcast = await metrics.counters.read(team, [HOUR], 'broadcast');
    expect(byBroadcast).toEqual([
      expect.objectContaining({
        broadcast: BROADCAST,
        counts: expect.objectContaining({ sent: 1, delivered: 1, opened: 3, unique_opened: 1 }),
      }),
    ]);
    expect(await metrics.counters.read(team, [HOUR + HOUR_MS], 'team')).toEqual([]);

    const analytics = new BroadcastAnalyticsStore(fx.redis, fx.keys, 3_600_000);
    const clicked = await analytics.recipients(team, BROADCAST, parseRecipientsQuery({ type: 'clicked' }), {
      limit: 10,
    });
    expect(clicked.items).toEqual([
      expect.objectContaining({
        emailId: ids[2],
        email: `${ids[2]}@example.test`,
        clicks: 3,
        links: [{ url: link, clicks: 3 }],
      }),
    ]);
    expect(
      (await analytics.recipients(team, BROADCAST, parseRecipientsQuery({ type: 'bounced' }), { limit: 10 }))
        .items,
    ).toEqual([]);
    expect(await analytics.links(team, BROADCAST, { limit: 10 })).toEqual({
      items: [{ url: link, clicks: 3, uniqueClicks: 1 }],
      hasMore: false,
    });

    const [timeline] = await metrics.emails.timelines(team, [ids[1]!, 'not-an-email']).then((t) => t);
    expect(timeline).toMatchObject({ id: ids[1], from: 'b@two.test' });
    expect(timeline!.events.map((e) => e.type)).toEqual([
      'email.queued',
      'email.sent',
      'email.delivered',
      'email.bounced',
    ]);
  });

  it('pages a broadcast group by cursor in both directions, and filters by address', async () => {
    const team = 'team-pages';
    const emails = emailsStore();
    const ids = Array.from({ length: 7 }, (_, i) => `0190a1b2-0000-7000-8000-00000000001${i}`);
    await emails.stage(
      team,
      ids.map((id) => email(id, 'x@one.test', BROADCAST)),
      new Date(NOW),
    );
    for (const id of ids) await emails.recordEvents(team, id, [item(id, 'sent', BROADCAST)]);
    const analytics = new BroadcastAnalyticsStore(fx.redis, fx.keys, 3_600_000);
    const sent = parseRecipientsQuery({ type: 'sent' });
    const p1 = await analytics.recipients(team, BROADCAST, sent, { limit: 3 });
    expect(p1.items.map((r) => r.emailId)).toEqual(ids.slice(0, 3));
    expect(p1.hasMore).toBe(true);
    const p3 = await analytics.recipients(team, BROADCAST, sent, { limit: 3, afterId: ids[5] });
    expect(p3).toMatchObject({ hasMore: false, items: [expect.objectContaining({ emailId: ids[6] })] });
    const back = await analytics.recipients(team, BROADCAST, sent, { limit: 3, beforeId: ids[5] });
    expect(back.items.map((r) => r.emailId)).toEqual(ids.slice(2, 5));
    expect(back.hasMore).toBe(true);
    const one = await analytics.recipients(
      team,
      BROADCAST,
      parseRecipientsQuery({ type: 'sent', email: `${ids[4]}@EXAMPLE.test` }),
      { limit: 3 },
    );
    expect(one.items.map((r) => r.emailId)).toEqual([ids[4]]);
    // delivered: nobody yet
    expect(
      (await analytics.recipients(team, BROADCAST, parseRecipientsQuery({ type: 'delivered' }), { limit: 3 }))
        .items,
    ).toEqual([]);
  });

  it('records an email’s unsubscribe once: timeline, team / domain / broadcast counters and the broadcast’s unsubscribed group; a repeat adds nothing', async () => {
    const team = 'team-unsub';
    const emails = emailsStore();
    const id = '0190a1b2-0000-7000-8000-000000000021';
    await emails.stage(team, [email(id, 'x@one.test', BROADCAST)], new Date(NOW));
    await emails.recordEvents(team, id, [item(id, 'sent', BROADCAST), item(id, 'delivered', BROADCAST)]);
    const unsub = () => ev(id, 'email.unsubscribed', BROADCAST);
    expect(await emails.recordUnsubscribe(team, id, unsub())).toBe('recorded');
    expect(await emails.recordUnsubscribe(team, id, unsub())).toBe('repeat');
    expect(await emails.recordUnsubscribe(team, 'gone', ev('gone', 'email.unsubscribed'))).toBe('missing');

    const metrics = new EmailMetricsStore(fx.redis, fx.keys, 3_600_000);
    const [counts] = await metrics.counters.read(team, [HOUR], 'team');
    expect(counts!.counts).toMatchObject({ delivered: 1, unsubscribed: 1 });
    const [byDomain] = await metrics.counters.read(team, [HOUR], 'domain');
    expect(byDomain).toMatchObject({ domain: 'one.test', counts: { unsubscribed: 1 } });
    const [byBroadcast] = await metrics.counters.read(team, [HOUR], 'broadcast');
    expect(byBroadcast).toMatchObject({ broadcast: BROADCAST, counts: { unsubscribed: 1 } });

    const analytics = new BroadcastAnalyticsStore(fx.redis, fx.keys, 3_600_000);
    const group = await analytics.recipients(
      team,
      BROADCAST,
      parseRecipientsQuery({ type: 'unsubscribed' }),
      {
        limit: 10,
      },
    );
    expect(group.items.map((r) => r.emailId)).toEqual([id]);

    // on the timeline once, numbered after the others; the status stays where it was
    const [timeline] = await metrics.emails.timelines(team, [id]);
    expect(timeline!.events.map((e) => [e.type, e.data.sequence])).toEqual([
      ['email.queued', 1],
      ['email.sent', 2],
      ['email.delivered', 3],
      ['email.unsubscribed', 4],
    ]);
    expect((await emails.get(team, id))!.status).toBe('delivered');
  });
});

describe('deleting an email', () => {
  it('removes a sent email’s record, attachments, timeline and index entries at once, keeps the counters, and refuses a queued one', async () => {
    const team = 'team-delete';
    const emails = emailsStore();
    const [sent, queued, fromBroadcast] = [31, 32, 33].map(
      (n) => `0190a1b2-0000-7000-8000-0000000000${n}`,
    ) as [string, string, string];
    const withParts = {
      ...email(sent, 'x@one.test'),
      content: {
        ...email(sent, 'x@one.test').content,
        subject: 'Invoice ready',
        tags: [{ name: 'kind', value: 'invoice' }],
        attachments: [{ filename: 'a.txt', content: Buffer.from('secret').toString('base64') }],
      },
    };
    await emails.stage(team, [withParts, email(queued, 'x@one.test')], new Date(NOW));
    await emails.stage(team, [email(fromBroadcast, 'x@one.test', BROADCAST)], new Date(NOW));
    for (const [id, b] of [
      [sent, undefined],
      [fromBroadcast, BROADCAST],
    ] as const)
      await emails.recordEvents(team, id, [item(id, 'sent', b), item(id, 'delivered', b)]);
    const listed = async (terms?: string[]) =>
      (await emails.list(team, { limit: 10, ...(terms && { terms }) }))!.items.map((e) => e.id);
    expect(await listed(['tag:kind=invoice'])).toEqual([sent]);
    expect(await emails.search.ids(team, 'subject:invoice')).toContain(sent);

    expect(await emails.deleteFinished(team, sent)).toBe('deleted');
    expect(await emails.get(team, sent)).toBeNull();
    expect(await emails.getForSend(team, sent)).toBeNull();
    expect(await emails.events(team, sent)).toEqual([]);
    // gone from the listing and every index itself (a read would skip a missing record anyway)
    expect(await fx.redis.zscore(fx.keys.emails(team), sent)).toBeNull();
    for (const term of [`to:${sent}@example.test`, 'tag:kind', 'subject:invoice', 'status:delivered'])
      expect(await emails.search.ids(team, term), term).not.toContain(sent);
    expect(await emails.deleteFinished(team, sent)).toBe('missing');

    // a queued email is still on its way: refused, untouched
    expect(await emails.deleteFinished(team, queued)).toBe('not_deletable');
    expect((await emails.get(team, queued))!.status).toBe('queued');

    // a broadcast's email leaves the broadcast's recipient groups; the counters stay
    expect(await emails.deleteFinished(team, fromBroadcast)).toBe('deleted');
    const analytics = new BroadcastAnalyticsStore(fx.redis, fx.keys, 3_600_000);
    expect(
      await analytics.recipients(team, BROADCAST, parseRecipientsQuery({ type: 'sent' }), { limit: 10 }),
    ).toMatchObject({ items: [] });
    expect(await fx.redis.zcard(fx.keys.broadcastRecipients(team, BROADCAST))).toBe(0);
    const metrics = new EmailMetricsStore(fx.redis, fx.keys, 3_600_000);
    const [counts] = await metrics.counters.read(team, [HOUR], 'team');
    expect(counts!.counts).toMatchObject({ received: 3, sent: 2, delivered: 2 });
    expect(await listed()).toEqual([queued]);
  });
});
