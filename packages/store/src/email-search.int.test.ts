import { describe, expect, it } from 'vitest';
import type { EmailContent, EmailStatus } from '@petrel/contracts';
import { emailSearchQueryTerms } from '@petrel/core';
import { newEmail, storedContent, storedEvent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore, type NewEmail } from './emails.store.js';
import { EmailStats, HOUR_MS } from './email-stats.js';

const fx = useStoreRedis('email-search');
const DAY = 86_400_000;
/** Recent enough to be within the retention of the stores below (their clock is the real one). */
const T0 = Date.now() - 60_000;

const ev = storedEvent;

function email(id: string, over: Partial<EmailContent> = {}, status: EmailStatus = 'queued'): NewEmail {
  const content = storedContent({ to: ['nobody@example.test'], subject: 'Hello', ...over });
  return newEmail(id, ev(status === 'scheduled' ? 'email.scheduled' : 'email.queued'), { content, status });
}

/** Every page of a filtered listing, following `after` cursors, then back with `before`. */
async function pages(store: EmailsStore, team: string, q: Record<string, string>, limit: number) {
  const terms = emailSearchQueryTerms(q);
  const forward: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await store.list(team, { limit, terms, ...(after && { after }) }))!;
    forward.push(page.items.map((r) => r.id));
    if (!page.hasMore) break;
    after = page.items.at(-1)!.id;
  }
  const oldest = forward.flat().at(-1);
  const backward: string[][] = oldest ? [[oldest]] : [];
  let before: string | undefined = oldest;
  while (before) {
    const page = (await store.list(team, { limit, terms, before }))!;
    if (page.items.length === 0) break;
    backward.unshift(page.items.map((r) => r.id));
    before = page.hasMore ? page.items[0]!.id : undefined;
  }
  return { forward, backward };
}

describe('email search indexes', () => {
  it('finds emails by recipient, tag, subject words and status, page by page, newest first', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'search-1';
    // 25 emails, one ms apart; every third to Ada, even ones tagged, some about invoices
    for (let i = 0; i < 25; i++) {
      await store.stage(
        team,
        [
          email(`e${String(i).padStart(2, '0')}`, {
            to: i % 3 === 0 ? ['Ada <ADA@example.test>'] : [`other${i}@example.test`],
            cc: i === 4 ? ['ada@example.test'] : [],
            tags: i % 2 === 0 ? [{ name: 'kind', value: i % 4 === 0 ? 'welcome' : 'digest' }] : [],
            subject: i % 5 === 0 ? `Your invoice #${i} for March` : `News ${i}`,
          }),
        ],
        new Date(T0 + i),
      );
    }
    const ids = (pred: (i: number) => boolean) =>
      Array.from({ length: 25 }, (_, i) => i)
        .filter(pred)
        .reverse()
        .map((i) => `e${String(i).padStart(2, '0')}`);

    const byTo = await pages(store, team, { to: 'ada@EXAMPLE.test' }, 3);
    expect(byTo.forward.flat()).toEqual(ids((i) => i % 3 === 0 || i === 4));
    expect(byTo.forward.every((p) => p.length <= 3)).toBe(true);
    expect(byTo.backward.flat()).toEqual(byTo.forward.flat());

    expect((await pages(store, team, { tag: 'kind' }, 4)).forward.flat()).toEqual(ids((i) => i % 2 === 0));
    expect((await pages(store, team, { tag: 'kind=welcome' }, 4)).forward.flat()).toEqual(
      ids((i) => i % 4 === 0),
    );
    expect((await pages(store, team, { subject: 'march INVOICE' }, 2)).forward.flat()).toEqual(
      ids((i) => i % 5 === 0),
    );
    // combined: the AND of the filters
    expect((await pages(store, team, { to: 'ada@example.test', tag: 'kind' }, 2)).forward.flat()).toEqual(
      ids((i) => (i % 3 === 0 || i === 4) && i % 2 === 0),
    );

    // status: every email is queued; delivering some moves them, in the recording script
    expect((await pages(store, team, { status: 'queued' }, 10)).forward.flat()).toEqual(ids(() => true));
    for (const id of ['e03', 'e10', 'e20']) {
      await store.recordEvents(team, id, [
        { status: 'sent', event: ev('email.sent') },
        { status: 'delivered', event: ev('email.delivered') },
      ]);
    }
    expect((await pages(store, team, { status: 'delivered' }, 2)).forward.flat()).toEqual([
      'e20',
      'e10',
      'e03',
    ]);
    expect((await pages(store, team, { status: 'queued' }, 30)).forward.flat()).toEqual(
      ids((i) => ![3, 10, 20].includes(i)),
    );
    expect((await store.list(team, { limit: 10, terms: ['status:sent'] }))!.items).toEqual([]);

    // a cursor that left the index since still marks its place
    const after = (await store.list(team, { limit: 5, terms: ['status:queued'], after: 'e20' }))!;
    expect(after.items.map((r) => r.id)).toEqual(['e19', 'e18', 'e17', 'e16', 'e15']);
    const before = (await store.list(team, { limit: 2, terms: ['status:queued'], before: 'e20' }))!;
    expect(before.items.map((r) => r.id)).toEqual(['e22', 'e21']);
    expect(before.hasMore).toBe(true);
    // an id that is no email of the team
    expect(await store.list(team, { limit: 5, terms: ['status:queued'], after: 'nope' })).toBeNull();
  });

  it('moves a canceled email from scheduled to canceled, and ties of one ms page in listing order', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'search-2';
    const batch = Array.from({ length: 7 }, (_, i) => email(`s${i}`, {}, 'scheduled'));
    await store.stage(team, batch, new Date(T0));
    const plain = (await store.list(team, { limit: 10 }))!.items.map((r) => r.id);
    expect((await pages(store, team, { status: 'scheduled' }, 3)).forward.flat()).toEqual(plain);
    expect(await store.cancelScheduled(team, 's3', ev('email.canceled'))).toBe('canceled');
    expect(
      (await store.list(team, { limit: 10, terms: ['status:canceled'] }))!.items.map((r) => r.id),
    ).toEqual(['s3']);
    expect((await pages(store, team, { status: 'scheduled' }, 2)).forward.flat()).toEqual(
      plain.filter((id) => id !== 's3'),
    );
  });

  it('indexes a batch whose emails share some terms and not others, each under every term it has and its own status', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'search-4';
    await store.stage(
      team,
      [email('b0', { to: ['first@example.test'], subject: 'Order shipped' })],
      new Date(T0),
    );
    // b0 again (a retried request: its record stays) with new ones sharing its subject words
    await store.stage(
      team,
      [
        email('b0', { to: ['first@example.test'], subject: 'Order shipped' }),
        email('b1', {
          to: ['second@example.test'],
          subject: 'Order shipped',
          tags: [{ name: 'k', value: 'v' }],
        }),
        email(
          'b2',
          { to: ['second@example.test', 'third@example.test'], subject: 'Refund issued' },
          'scheduled',
        ),
        email('b3', {
          to: ['third@example.test'],
          subject: 'Order refund',
          tags: [{ name: 'k', value: 'v' }],
        }),
      ],
      new Date(T0 + 1),
    );
    const find = async (q: Record<string, string>) => (await pages(store, team, q, 10)).forward.flat();
    expect(await find({ subject: 'order' })).toEqual(['b3', 'b1', 'b0']);
    expect(await find({ subject: 'refund' })).toEqual(['b3', 'b2']);
    expect(await find({ subject: 'order shipped' })).toEqual(['b1', 'b0']);
    expect(await find({ to: 'second@example.test' })).toEqual(['b2', 'b1']);
    expect(await find({ to: 'third@example.test' })).toEqual(['b3', 'b2']);
    expect(await find({ tag: 'k=v' })).toEqual(['b3', 'b1']);
    expect(await find({ status: 'queued' })).toEqual(['b3', 'b1', 'b0']);
    expect(await find({ status: 'scheduled' })).toEqual(['b2']);
    // b0 keeps its first score (its record's created_ms), not the retry's
    expect(await fx.redis.zscore(store.search.termKey(team, 'subject:order'), 'b0')).toBe(String(T0));
  });

  it('lists nothing older than the retention, trims the status indexes with the listing, and indexes a re-staged email once', async () => {
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { clock, statsRetentionMs: DAY });
    const team = 'search-3';
    await store.stage(team, [email('old', { to: ['x@example.test'] })], new Date(now - 2 * DAY));
    await store.stage(team, [email('new', { to: ['x@example.test'] })], new Date(now));
    await store.stage(team, [email('new', { to: ['x@example.test'] })], new Date(now));
    expect(
      (await store.list(team, { limit: 10, terms: ['to:x@example.test'] }))!.items.map((r) => r.id),
    ).toEqual(['new']);
    expect(await fx.redis.zcard(store.search.termKey(team, 'to:x@example.test'))).toBe(1);
    expect(await fx.redis.pttl(store.search.termKey(team, 'to:x@example.test'))).toBeGreaterThan(0);
    now += 10;
    await store.trimExpired(team, now - DAY);
    expect(await fx.redis.zrange(store.search.termKey(team, 'status:queued'), '0', '-1')).toEqual(['new']);
  });
});

describe('email counters', () => {
  it('counts sent, delivered, bounced, complained, opened and clicked per lane and hour, expiring after the retention', async () => {
    // this hour and the next (the counters expire by Redis's clock)
    const h0 = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
    const hour = (h: number) => new Date(h0 + h * HOUR_MS).toISOString();
    let now = h0 + 30 * 60_000;
    const clock = { now: () => now };
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { clock, statsRetentionMs: 2 * DAY });
    const team = 'stats-1';
    await store.stage(team, [email('c1'), email('c2'), { ...email('c3'), lane: 'broadcast' }], new Date(now));
    await store.recordEvents(team, 'c1', [
      { status: 'sent', event: ev('email.sent') },
      { status: 'delivered', event: ev('email.delivered') },
    ]);
    await store.recordEvent(team, 'c2', 'bounced', ev('email.bounced'));
    await store.recordEvent(team, 'c3', 'delivered', ev('email.delivered'));
    now += HOUR_MS;
    await store.recordEvent(team, 'c1', 'opened', ev('email.opened'));
    await store.recordEvent(team, 'c1', 'opened', ev('email.opened'));
    await store.recordEvent(team, 'c1', 'complained', ev('email.complained'));
    await store.recordEvent(team, 'c2', 'delivery_delayed', ev('email.delivery_delayed'));

    const stats = new EmailStats(fx.redis, fx.keys);
    const zero = { sent: 0, delivered: 0, bounced: 0, complained: 0, opened: 0, clicked: 0 };
    const rows = await stats.read(team, h0, h0 + 2 * HOUR_MS);
    expect(rows).toEqual([
      { bucket: hour(0), lane: 'send', ...zero, sent: 1, delivered: 1, bounced: 1 },
      { bucket: hour(0), lane: 'broadcast', ...zero, delivered: 1 },
      { bucket: hour(1), lane: 'send', ...zero, opened: 2, complained: 1 },
      { bucket: hour(1), lane: 'broadcast', ...zero },
    ]);
    expect(await stats.read(team, h0, h0 + HOUR_MS, 'broadcast')).toEqual([
      { bucket: hour(0), lane: 'broadcast', ...zero, delivered: 1 },
    ]);
    const expireAt = await fx.redis.pexpiretime(fx.keys.emailStats(team, h0));
    expect(expireAt).toBe(h0 + HOUR_MS + 2 * DAY);
  });
});
