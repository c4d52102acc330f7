import { describe, expect, it, vi } from 'vitest';
import type { EmailContent, EmailStatus } from '@petrel/contracts';
import { emailSearchQueryTerms, emailSearchTerms, statusTerm } from '@petrel/core';
import { newEmail, storedContent, storedEvent, useStoreRedis } from './redis.fixture.js';
import { EmailsStore, type NewEmail } from './emails.store.js';
import { EmailStats, HOUR_MS } from './email-stats.js';

const fx = useStoreRedis('email-search');
const DAY = 86_400_000;
const dayOf = (ms: number) => Math.floor(ms / DAY);

/**
 * The postings of `term` (lua/includes/email-search-postings.lua) in the team's day sets of the
 * days around `atMs`: per posting its ms and its id, or `~` and the ids of a group posting.
 */
async function postings(store: EmailsStore, team: string, term: string, atMs = T0) {
  const out: { ms: number; x: string }[] = [];
  for (let d = dayOf(atMs) - 3; d <= dayOf(atMs) + 1; d++) {
    for (const m of await fx.redis.zrangebylex(store.search.dayKey(team, d), `[${term}\0`, `(${term}\x01`))
      out.push({ ms: Number(m.slice(term.length + 1, term.length + 14)), x: m.slice(term.length + 15) });
  }
  return out;
}
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
    // b0 keeps its first ms (its record's created_ms), not the retry's
    expect(await postings(store, team, 'subject:order')).toContainEqual({ ms: T0, x: 'b0' });
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
    // the old email's day is past the retention: no posting; the new one's once
    expect(await postings(store, team, 'to:x@example.test', now)).toEqual([{ ms: now, x: 'new' }]);
    now += 10;
    await store.trimExpired(team, now - DAY);
    expect(await fx.redis.zrange(store.search.termKey(team, 'status:queued'), '0', '-1')).toEqual(['new']);
  });
});

/** Every email of the team's plain listing, newest first (the listing every filter pages like). */
async function listing(store: EmailsStore, team: string) {
  const all = [];
  let after: string | undefined;
  for (;;) {
    const page = (await store.list(team, { limit: 100, ...(after && { after }) }))!;
    all.push(...page.items);
    if (!page.hasMore) return all;
    after = page.items.at(-1)!.id;
  }
}

/**
 * What per-email postings list for `q`: the emails of the listing, in its order, whose terms
 * (core's emailSearchTerms of the stored content) and current status hold all of q's terms.
 */
async function perEmail(store: EmailsStore, team: string, q: Record<string, string>) {
  const want = emailSearchQueryTerms(q);
  return (await listing(store, team))
    .filter((r) => {
      const has = new Set([...emailSearchTerms(r.content), statusTerm(r.status)]);
      return want.every((t) => has.has(t));
    })
    .map((r) => r.id);
}

/** Each query pages, both ways and at each limit, exactly what per-email postings list. */
async function expectPagesAsPerEmail(
  store: EmailsStore,
  team: string,
  queries: readonly Record<string, string>[],
  limits: readonly number[],
) {
  for (const q of queries) {
    const want = await perEmail(store, team, q);
    for (const limit of limits) {
      const got = await pages(store, team, q, limit);
      const what = `${JSON.stringify(q)} limit ${limit}`;
      expect(got.forward.flat(), what).toEqual(want);
      expect(got.backward.flat(), what).toEqual(want);
      expect(
        got.forward.every((p) => p.length <= limit),
        what,
      ).toBe(true);
    }
  }
}

/** The group postings of a term (lua/includes/email-search-postings.lua), oldest first. */
async function groupMembers(store: EmailsStore, team: string, term: string, atMs = T0) {
  return (await postings(store, team, term, atMs)).map((p) => p.x).filter((x) => x.startsWith('~'));
}

describe('group postings (a term every email of one write has, posted once for the write)', () => {
  it('list exactly what per-email postings list, in listing order, page by page both ways, filters combined', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'group-1';
    const sent = (id: string, over: Partial<EmailContent>, status: EmailStatus = 'queued') =>
      email(id, { to: [`${id}@example.test`], ...over }, status);
    // two requests and two single emails at the same ms, their ids interleaved, so one score
    // holds two groups and lone ids; then a request one ms later and a scheduled one after it
    const a = ['k1', 'k3', 'k5', 'k7', 'k9', 'k11'].map((id, i) =>
      sent(id, { subject: `Quarterly invoice ready #${i}`, tags: [{ name: 'plan', value: 'pro' }] }),
    );
    const b = ['k2', 'k4', 'k6', 'k8'].map((id, i) =>
      sent(id, {
        to: ['Ops <OPS@example.test>'],
        cc: [`${id}@example.test`],
        subject: 'Quarterly invoice overdue',
        tags: i % 2 === 0 ? [{ name: 'plan', value: 'pro' }] : [{ name: 'plan', value: 'free' }],
      }),
    );
    const c = ['j1', 'j2', 'j3', 'j4', 'j5'].map((id, i) =>
      sent(id, { subject: `Quarterly invoice ready, part ${i}`, tags: [{ name: 'plan', value: 'pro' }] }),
    );
    const d = ['h1', 'h2', 'h3', 'h4'].map((id) => sent(id, { subject: 'Invoice reminder' }, 'scheduled'));
    await store.stage(team, a, new Date(T0));
    await store.stage(team, [sent('k0', { subject: 'Quarterly report' })], new Date(T0));
    await store.stage(team, b, new Date(T0));
    await store.stage(team, [sent('k10', { subject: 'Quarterly invoice' })], new Date(T0));
    await store.stage(team, c, new Date(T0 + 1));
    await store.stage(team, d, new Date(T0 + 2));
    // emails of one group in different statuses
    for (const id of ['k3', 'j2', 'k4']) {
      await store.recordEvents(team, id, [
        { status: 'sent', event: ev('email.sent') },
        { status: 'delivered', event: ev('email.delivered') },
      ]);
    }
    expect(await store.cancelScheduled(team, 'h2', ev('email.canceled'))).toBe('canceled');

    // the shared terms are group postings: one member per request, not one per email
    expect(await groupMembers(store, team, 'subject:quarterly')).toHaveLength(3);
    expect(await postings(store, team, 'subject:quarterly')).toHaveLength(5);
    expect(await groupMembers(store, team, 'to:ops@example.test')).toHaveLength(1);
    expect(await groupMembers(store, team, 'tag:plan=pro')).toHaveLength(2);
    // b's plan=pro is not on all of b: per email
    expect(await postings(store, team, 'tag:plan=pro')).toContainEqual({ ms: T0, x: 'k2' });
    expect(await postings(store, team, 'to:k1@example.test')).toEqual([{ ms: T0, x: 'k1' }]);

    const queries: Record<string, string>[] = [
      { subject: 'invoice' },
      { subject: 'quarterly invoice' },
      { subject: 'ready' },
      { subject: 'overdue' },
      { tag: 'plan' },
      { tag: 'plan=pro' },
      { tag: 'plan=free' },
      { to: 'ops@example.test' },
      { status: 'queued' },
      { status: 'delivered' },
      { status: 'scheduled' },
      // a group term with a per-email term, each way round as the driver
      { subject: 'ready', to: 'k5@example.test' },
      { subject: 'quarterly', to: 'k4@example.test' },
      { subject: 'overdue', tag: 'plan=pro' },
      { to: 'ops@example.test', tag: 'plan=free' },
      // a group term with a status
      { subject: 'invoice', status: 'queued' },
      { subject: 'invoice', status: 'delivered' },
      { tag: 'plan=pro', status: 'delivered' },
      { subject: 'invoice', status: 'scheduled' },
      { subject: 'quarterly invoice', tag: 'plan=pro', status: 'queued' },
      { subject: 'reminder', status: 'canceled' },
    ];
    await expectPagesAsPerEmail(store, team, queries, [1, 2, 3, 5, 100]);
    // the query set is not vacuous: groups, lone ids and both scores are in the answers
    expect(await perEmail(store, team, { subject: 'invoice' })).toEqual([
      'h4', 'h3', 'h2', 'h1', 'j5', 'j4', 'j3', 'j2', 'j1', 'k9', 'k8', 'k7', 'k6', 'k5', 'k4', 'k3', 'k2', 'k11', 'k10', 'k1',
    ]); // prettier-ignore
    // a cursor inside a group, either way
    const q = emailSearchQueryTerms({ subject: 'quarterly' });
    const page = async (cursor: { after: string } | { before: string }) =>
      (await store.list(team, { limit: 3, terms: q, ...cursor }))!.items.map((r) => r.id);
    expect(await page({ after: 'k6' })).toEqual(['k5', 'k4', 'k3']);
    expect(await page({ before: 'k6' })).toEqual(['k9', 'k8', 'k7']);
  });

  it('a re-staged request lists each email once, its older records and the new ones apart', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'group-2';
    const batch = ['r0', 'r1', 'r2'].map((id) => email(id, { subject: 'Weekly digest' }));
    await store.stage(team, batch, new Date(T0));
    await store.stage(team, batch, new Date(T0 + 5));
    expect(await groupMembers(store, team, 'subject:weekly')).toHaveLength(1);
    // the records exist at T0: the retry posts them on its own beside the group; r3 is new
    await store.stage(team, [...batch, email('r3', { subject: 'Weekly digest' })], new Date(T0 + 9));
    const q = { subject: 'weekly digest' };
    const all = ['r3', 'r2', 'r1', 'r0'];
    expect(await perEmail(store, team, q)).toEqual(all);
    for (const limit of [1, 2, 10]) {
      expect((await pages(store, team, q, limit)).forward.flat()).toEqual(all);
      expect((await pages(store, team, { ...q, to: 'nobody@example.test' }, limit)).backward.flat()).toEqual(
        all,
      );
    }
  });

  it('an email deleted from a group leaves it, the group its others listed; the last one takes the group', async () => {
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const team = 'group-3';
    const ids = ['d0', 'd1', 'd2', 'd3'];
    await store.stage(
      team,
      ids.map((id) => email(id, { subject: 'Receipt attached', tags: [{ name: 'kind', value: 'receipt' }] })),
      new Date(T0),
    );
    for (const id of ids) await store.recordEvent(team, id, 'sent', ev('email.sent'));
    expect(await store.deleteFinished(team, 'd1')).toBe('deleted');
    expect(await store.deleteFinished(team, 'd2')).toBe('deleted');
    const queries: Record<string, string>[] = [
      { subject: 'receipt' },
      { tag: 'kind=receipt' },
      { subject: 'attached', status: 'sent' },
    ];
    for (const q of queries)
      expect((await pages(store, team, q, 1)).forward.flat(), JSON.stringify(q)).toEqual(['d3', 'd0']);
    expect(await groupMembers(store, team, 'subject:receipt')).toEqual(['~d0,d3']);
    expect(await store.deleteFinished(team, 'd0')).toBe('deleted');
    expect(await store.deleteFinished(team, 'd3')).toBe('deleted');
    expect(await postings(store, team, 'subject:receipt')).toEqual([]);
    expect((await pages(store, team, { tag: 'kind' }, 5)).forward.flat()).toEqual([]);
  });

  it('lists no group older than the retention; its day set outlives it by less than a day', async () => {
    let now = 1_700_000_000_000;
    const clock = { now: () => now };
    const store = new EmailsStore(fx.redis, fx.keys, DAY, { clock, statsRetentionMs: DAY });
    const team = 'group-4';
    const batch = (ids: string[]) => ids.map((id) => email(id, { subject: 'Status report' }));
    await store.stage(team, batch(['o0', 'o1']), new Date(now - DAY - 1));
    await store.stage(team, batch(['m0', 'm1']), new Date(now - DAY + 1));
    const q = { subject: 'status report' };
    expect((await pages(store, team, q, 1)).forward.flat()).toEqual(['m1', 'm0']);
    expect(await groupMembers(store, team, 'subject:report', now)).toEqual(['~o0,o1', '~m0,m1']);
    // the day set of the day before expires a retention after that day's end
    const yesterday = store.search.dayKey(team, dayOf(now) - 1);
    const ttl = await fx.redis.pttl(yesterday);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(dayOf(now) * DAY + DAY - now);
    now += 2;
    await store.stage(team, batch(['n0', 'n1']), new Date(now));
    expect((await pages(store, team, q, 1)).forward.flat()).toEqual(['n1', 'n0']);
    expect(await fx.redis.pttl(store.search.dayKey(team, dayOf(now)))).toBeGreaterThan(ttl);
  });

  it('a day set expires in Redis a retention after its day ends, taking its postings with it', async () => {
    const retention = 300;
    // 100 ms before a day's end: its set lives 400 ms
    const now = (dayOf(1_700_000_000_000) + 1) * DAY - 100;
    const store = new EmailsStore(fx.redis, fx.keys, retention, {
      clock: { now: () => now },
      statsRetentionMs: DAY,
    });
    const team = 'group-5';
    await store.stage(
      team,
      ['x0', 'x1'].map((id) => email(id, { to: [`${id}@example.test`], subject: 'Short lived' })),
      new Date(now),
    );
    const key = store.search.dayKey(team, dayOf(now));
    expect((await postings(store, team, 'subject:short', now)).map((p) => p.x)).toEqual(['~x0,x1']);
    expect(await postings(store, team, 'to:x1@example.test', now)).toEqual([{ ms: now, x: 'x1' }]);
    const ttl = await fx.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    await vi.waitFor(async () => expect(await fx.redis.exists(key)).toBe(0), {
      timeout: 10_000,
      interval: 50,
    });
  });
});

describe('day sets (postings per day of creation)', () => {
  it('page across day boundaries both ways, rare and shared terms and statuses combined, as per-email postings would', async () => {
    const dayEnd = (dayOf(1_700_000_000_000) + 1) * DAY;
    let now = dayEnd + DAY + 1000;
    const clock = { now: () => now };
    const store = new EmailsStore(fx.redis, fx.keys, 5 * DAY, { clock, statsRetentionMs: DAY });
    const team = 'days-1';
    const sent = (id: string, over: Partial<EmailContent>, status: EmailStatus = 'queued') =>
      email(id, { to: [`${id}@example.test`], ...over }, status);
    // requests over three days, at and around their boundaries: a group, lone emails, a
    // request whose emails share only some terms, and ties of one ms across requests
    const writes: [number, NewEmail[]][] = [
      [dayEnd - DAY + 5, ['a0', 'a1', 'a2'].map((id) => sent(id, { subject: 'Monthly invoice' }))],
      [dayEnd - 1, ['b0', 'b1'].map((id) => sent(id, { subject: 'Monthly invoice', tags: [{ name: 'plan', value: 'pro' }] }))],
      [dayEnd - 1, [sent('b2', { to: ['ops@example.test'], subject: 'Invoice overdue' })]],
      [dayEnd, ['c0', 'c1', 'c2', 'c3'].map((id, i) => sent(id, { cc: ['ops@example.test'], subject: `Invoice ${i} overdue`, tags: i % 2 ? [] : [{ name: 'plan', value: 'pro' }] }))],
      [dayEnd + 1, [sent('d0', { subject: 'Monthly invoice' }, 'scheduled')]],
      [dayEnd + DAY - 1, ['e0', 'e1', 'e2'].map((id) => sent(id, { to: ['ops@example.test'], subject: 'Monthly report' }))],
      [dayEnd + DAY, ['f0', 'f1'].map((id) => sent(id, { subject: 'Invoice reminder', tags: [{ name: 'plan', value: 'pro' }] }, 'scheduled'))],
    ]; // prettier-ignore
    for (const [at, emails] of writes) {
      now = at;
      await store.stage(team, emails, new Date(at));
    }
    now = dayEnd + DAY + 1000;
    // postings live in the set of their own day
    expect(await groupMembers(store, team, 'subject:monthly', dayEnd)).toEqual([
      '~a0,a1,a2',
      '~b0,b1',
      '~e0,e1,e2',
    ]);
    expect(
      (await fx.redis.zrangebylex(store.search.dayKey(team, dayOf(dayEnd - 1)), '-', '+')).length,
    ).toBeGreaterThan(0);
    for (const id of ['a1', 'b0', 'c2']) {
      await store.recordEvents(team, id, [
        { status: 'sent', event: ev('email.sent') },
        { status: 'delivered', event: ev('email.delivered') },
      ]);
    }
    expect(await store.cancelScheduled(team, 'f1', ev('email.canceled'))).toBe('canceled');
    expect(await store.deleteFinished(team, 'a1')).toBe('deleted');
    const queries: Record<string, string>[] = [
      { subject: 'invoice' },
      { subject: 'monthly' },
      { subject: 'overdue' },
      { to: 'ops@example.test' },
      { to: 'c1@example.test' },
      { subject: 'reminder', status: 'canceled' },
      { tag: 'plan=pro' },
      ...['queued', 'delivered', 'scheduled'].map((status) => ({ status })),
      { subject: 'invoice', to: 'ops@example.test' },
      { subject: 'invoice', tag: 'plan=pro' },
      { subject: 'monthly invoice', status: 'queued' },
      { subject: 'invoice', to: 'b1@example.test' },
      { to: 'ops@example.test', tag: 'plan=pro', status: 'queued' },
      { subject: 'invoice', status: 'delivered' },
    ];
    await expectPagesAsPerEmail(store, team, queries, [1, 2, 3, 7]);
    // the answers span the days: not vacuous
    expect(await perEmail(store, team, { subject: 'invoice' })).toEqual([
      'f1', 'f0', 'd0', 'c3', 'c2', 'c1', 'c0', 'b2', 'b1', 'b0', 'a2', 'a0',
    ]); // prettier-ignore
    expect(await perEmail(store, team, { to: 'ops@example.test' })).toEqual([
      'e2',
      'e1',
      'e0',
      'c3',
      'c2',
      'c1',
      'c0',
      'b2',
    ]);
    // the whole first day leaves the reads with the retention (its set expires later)
    now = dayEnd + 5 * DAY;
    expect((await pages(store, team, { subject: 'invoice' }, 2)).forward.flat()).toEqual([
      'f1', 'f0', 'd0', 'c3', 'c2', 'c1', 'c0',
    ]); // prettier-ignore
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
