/**
 * Email metrics and broadcast analytics end to end with the official `resend` SDK
 * (`emails.metrics`, `broadcasts.recipients`, `broadcasts.clickedLinks`) against the whole stack:
 * counts after real sends to the SMTP sink, simulated bounces and complaints (Resend's test
 * addresses: no SMTP), opens and clicks through the tracking routes; periods in a time zone;
 * bad parameters → 422 naming the field; another team's broadcast → 404.
 *
 * Each test works in a team of its own (created through the store, as the tracking scenarios
 * do), so the team-wide counters it reads hold exactly what it sent.
 *
 * Shared by the single-node suites (email-metrics.e2e.test.ts, broadcast-analytics.e2e.test.ts)
 * and the Redis Cluster suite (audience-cluster.e2e.test.ts): the counting script and every read
 * must keep to one hash slot.
 */
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { Resend } from 'resend';
import { ApiKeysStore, Keys, TeamSettingsStore, createRedis, type RedisClient } from '@petrel/store';
import { waitUntil, type SinkMessage } from '@petrel/testing';
import type { Stack } from '../helpers.js';

const LINK = 'https://shop.test/spring?utm=mail';

interface Team {
  teamId: string;
  key: string;
  resend: Resend;
}

function setup(current: () => Stack) {
  let stack: Stack;
  let redis: RedisClient;
  let n = 0;
  beforeAll(() => {
    stack = current();
    redis = createRedis(stack.redis.url);
  });
  afterAll(async () => {
    await redis?.quit();
  });
  beforeEach(() => {
    stack = current();
  });
  const ctx = {
    stack: () => stack,
    tag: () => `m${Date.now().toString(36)}${++n}`,
    /** A fresh team with open and click tracking on, and an SDK client with its key. */
    async team(): Promise<Team> {
      const keys = new Keys(stack.prefix);
      const teams = new ApiKeysStore(redis, keys);
      const teamId = await teams.createTeam(`metrics-${ctx.tag()}`);
      const { token } = await teams.create(teamId, { name: 'metrics e2e' });
      await new TeamSettingsStore(redis, keys).setTracking(teamId, { open: true, click: true });
      return { teamId, key: token, resend: new Resend(token, { baseUrl: stack.baseUrl }) };
    },
    async lastEvent(team: Team, id: string, want: string): Promise<void> {
      await waitUntil(async () => (await team.resend.emails.get(id)).data?.last_event === want, {
        timeoutMs: 30_000,
        message: `email ${id} ${want}`,
      });
    },
    /** The copies the sink got for `address`. */
    copiesTo(address: string): SinkMessage[] {
      return stack.sink.messages.filter((m) => (m.envelope.to as string[]).includes(address));
    },
    /** The tracked URLs of a delivered html: the pixel and the links. */
    tracking(html: string): { pixel: string; links: string[] } {
      const local = (u: string) =>
        u.replace(/&amp;/g, '&').replace(/^http:\/\/localhost:/, 'http://127.0.0.1:');
      return {
        pixel: local(/<img src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1]!),
        links: [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) => local(m[1]!)),
      };
    },
    async hit(url: string): Promise<void> {
      const res = await fetch(url, { redirect: 'manual' });
      expect([200, 302]).toContain(res.status);
      await res.arrayBuffer();
    },
    /** A sent broadcast of `team` to `addresses`, once every one of its emails is over. */
    async sentBroadcast(team: Team, addresses: string[], html: string): Promise<string> {
      const seg = (await team.resend.segments.create({ name: `seg ${ctx.tag()}` })).data!.id;
      for (const email of addresses) {
        const { error } = await team.resend.contacts.create({ email, segments: [{ id: seg }] });
        expect(error).toBeNull();
      }
      const { data, error } = await team.resend.broadcasts.create({
        segmentId: seg,
        from: 'News <news@acme.test>',
        subject: 'Spring',
        html,
        name: 'Spring sale',
      });
      expect(error).toBeNull();
      expect((await team.resend.broadcasts.send(data!.id)).error).toBeNull();
      const over = ['delivered', 'bounced', 'complained', 'failed', 'suppressed'];
      await waitUntil(
        async () => {
          const list = await team.resend.emails.list({ limit: 100 });
          const mine = list.data?.data ?? [];
          return mine.length === addresses.length && mine.every((e) => over.includes(e.last_event));
        },
        { timeoutMs: 60_000, message: 'the broadcast’s emails to be over' },
      );
      return data!.id;
    },
    /** Three fresh addresses at example.test. */
    people(): [string, string, string] {
      const tag = ctx.tag();
      return [`ada.${tag}@example.test`, `bob.${tag}@example.test`, `eve.${tag}@example.test`];
    },
    /** The unsubscribe URL of the copy `to` got (its List-Unsubscribe, RFC 8058). */
    unsubscribeUrl(to: string): string {
      const copy = ctx.copiesTo(to)[0]!;
      const value = copy.parsed.headers.find((h) => h.key === 'list-unsubscribe')?.value;
      expect(typeof value).toBe('string');
      return (value as string).slice(1, -1).replace(/^http:\/\/localhost:/, 'http://127.0.0.1:');
    },
    /** The RFC 8058 one-click POST a mailbox provider sends to the copy `to` got. */
    async oneClick(to: string): Promise<void> {
      const res = await fetch(ctx.unsubscribeUrl(to), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    },
    /** A raw GET with the team's key (what the SDK's types would not let a test send). */
    async raw(team: Team, path: string): Promise<{ status: number; body: any }> {
      return stack.http(path, { key: team.key });
    },
  };
  return ctx;
}

export function emailMetricsScenarios(current: () => Stack): void {
  const t = setup(current);

  async function send(team: Team, from: string, to: string, html = '<p>hi</p>'): Promise<string> {
    const { data, error } = await team.resend.emails.send({ from, to, subject: 'Metrics', html });
    expect(error).toBeNull();
    return data!.id;
  }

  it('counts real sends, simulated bounces and complaints: totals, by domain, by email, with a domain filter', async () => {
    const team = await t.team();
    const domain = (await team.resend.domains.create({ name: `${t.tag()}.metrics.test` })).data!;
    const from = `News <news@${domain.name}>`;
    const real = await send(team, from, `ada.${t.tag()}@example.test`);
    const bounced = await send(team, from, `bounced+${t.tag()}@resend.dev`);
    const complained = await send(team, from, `complained+${t.tag()}@resend.dev`);
    const other = await send(team, 'Ops <ops@other.test>', `delivered+${t.tag()}@resend.dev`);
    await t.lastEvent(team, real, 'delivered');
    await t.lastEvent(team, bounced, 'bounced');
    await t.lastEvent(team, complained, 'complained');
    await t.lastEvent(team, other, 'delivered');

    const all = await team.resend.emails.metrics();
    expect(all.error).toBeNull();
    expect(all.data).toMatchObject({ object: 'metrics', dimensions: [], granularity: 'daily' });
    expect(all.data!.data).toBeUndefined();
    expect(all.data!.totals).toMatchObject({
      received: 4,
      sent: 3,
      delivered: 3,
      bounced: 1,
      bounced_permanent: 1,
      bounced_transient: 0,
      complained: 1,
      opened: 0,
      delivery_rate: 0.75,
      bounce_rate: 0.25,
      complaint_rate: 0.3333,
    });

    const byDomain = await team.resend.emails.metrics({
      dimensions: ['domain'],
      metrics: ['sent', 'bounced'],
    });
    expect(byDomain.error).toBeNull();
    expect(byDomain.data!.metrics).toEqual(['sent', 'bounced']);
    expect(byDomain.data!.data).toEqual([
      { domain_id: domain.id, domain_name: domain.name, sent: 2, bounced: 1 },
      { domain_name: 'other.test', sent: 1, bounced: 0 },
    ]);
    const filtered = await team.resend.emails.metrics({
      domainId: [domain.id],
      metrics: ['delivered', 'complained'],
    });
    expect(filtered.data!.totals).toEqual({ delivered: 2, complained: 1 });

    const byEmail = await team.resend.emails.metrics({
      dimensions: ['email'],
      emailId: [bounced, complained],
      metrics: ['received', 'delivered', 'bounced', 'complained'],
    });
    expect(byEmail.error).toBeNull();
    expect(byEmail.data!.data).toEqual(
      [
        { email_id: bounced, received: 1, delivered: 0, bounced: 1, complained: 0 },
        { email_id: complained, received: 1, delivered: 1, bounced: 0, complained: 1 },
      ].sort((a, b) => (a.email_id < b.email_id ? -1 : 1)),
    );
    expect(byEmail.data!.totals).toEqual({ received: 2, delivered: 1, bounced: 1, complained: 1 });
  });

  it('counts opens and clicks, each email once in the unique counts and the rates', async () => {
    const team = await t.team();
    const to = `reader.${t.tag()}@example.test`;
    const id = await send(team, 'Shop <shop@acme.test>', to, `<p>New: <a href="${LINK}">spring</a></p>`);
    await t.lastEvent(team, id, 'delivered');
    const { pixel, links } = t.tracking(t.copiesTo(to)[0]!.parsed.html ?? '');
    await t.hit(pixel);
    await t.hit(pixel);
    await t.hit(links[0]!);
    const { data, error } = await team.resend.emails.metrics({
      metrics: [
        'delivered',
        'opened',
        'unique_opened',
        'clicked',
        'unique_clicked',
        'open_rate',
        'click_rate',
      ],
    });
    expect(error).toBeNull();
    expect(data!.totals).toEqual({
      delivered: 1,
      opened: 2,
      unique_opened: 1,
      clicked: 1,
      unique_clicked: 1,
      open_rate: 1,
      click_rate: 1,
    });
  });

  it('folds hours into the days, weeks and months of the time zone asked for', async () => {
    const team = await t.team();
    const id = await send(team, 'A <a@zones.test>', `delivered+${t.tag()}@resend.dev`);
    await t.lastEvent(team, id, 'delivered');
    const now = Date.now();
    for (const [timezone, granularity] of [
      ['Pacific/Kiritimati', 'daily'], // UTC+14
      ['Pacific/Pago_Pago', 'daily'], // UTC-11
      ['Asia/Kolkata', 'weekly'], // UTC+05:30
      ['America/New_York', 'monthly'],
      ['UTC', 'hourly'],
    ] as const) {
      const { data, error } = await team.resend.emails.metrics({
        dimensions: ['period'],
        granularity,
        timezone,
        metrics: ['delivered'],
        startDate: new Date(now - 40 * 86_400_000).toISOString(),
      });
      expect(error).toBeNull();
      const rows = data!.data!;
      const periods = rows.map((r) => Date.parse(r.period!));
      // oldest first, every period of the range once, and the email in the period holding now
      expect([...periods].sort((a, b) => a - b)).toEqual(periods);
      expect(rows.reduce((s, r) => s + (r.delivered ?? 0), 0)).toBe(1);
      const at = rows.findIndex((r) => r.delivered === 1);
      expect(periods[at]!).toBeLessThanOrEqual(now);
      if (at + 1 < periods.length) expect(periods[at + 1]!).toBeGreaterThan(now);
      // each period starts at local midnight (on a Monday, on the 1st) of that zone
      const local = new Intl.DateTimeFormat('en-US', {
        timeZone: timezone,
        hourCycle: 'h23',
        weekday: 'short',
        day: 'numeric',
        hour: '2-digit',
        minute: '2-digit',
      });
      for (const p of periods) {
        const parts = Object.fromEntries(local.formatToParts(p).map((x) => [x.type, x.value]));
        if (granularity !== 'hourly') expect(`${parts.hour}:${parts.minute}`).toBe('00:00');
        if (granularity === 'weekly') expect(parts.weekday).toBe('Mon');
        if (granularity === 'monthly') expect(parts.day).toBe('1');
      }
      if (granularity === 'hourly') expect(periods.every((p) => p % 3_600_000 === 0)).toBe(true);
    }
    // dates are local days of the zone: a 3-day range is 3 daily rows
    const days = await team.resend.emails.metrics({
      dimensions: ['period'],
      timezone: 'Europe/Paris',
      startDate: '2026-03-28',
      endDate: '2026-03-30',
      metrics: ['sent'],
    });
    expect(days.data!.data!.map((r) => r.period)).toEqual([
      '2026-03-27T23:00:00.000Z',
      '2026-03-28T23:00:00.000Z', // 29 March: summer time starts, a 23-hour day
      '2026-03-29T22:00:00.000Z',
    ]);
  });

  it('refuses bad parameters with 422 naming the field, and is not swallowed by /emails/:id', async () => {
    const team = await t.team();
    const bad: [Record<string, unknown>, string][] = [
      [{ granularity: 'yearly' }, 'granularity'],
      [{ timezone: 'Mars/Olympus' }, 'timezone'],
      [{ metrics: ['sent', 'revenue'] }, 'metrics'],
      [
        { dimensions: ['email', 'broadcast'], emailId: ['0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b'] },
        'dimensions',
      ],
      [{ startDate: '2026-07-10', endDate: '2026-07-01' }, 'start_date'],
      [{ startDate: 'last tuesday' }, 'start_date'],
      [{ domainId: ['nope'] }, 'domain_id'],
    ];
    for (const [options, field] of bad) {
      const { data, error } = await team.resend.emails.metrics(options as never);
      expect(data).toBeNull();
      expect(error).toMatchObject({ statusCode: 422, name: 'validation_error' });
      expect(error!.message.startsWith(`${field}: `)).toBe(true);
    }
    const raw = await t.raw(team, '/emails/metrics');
    expect(raw.status).toBe(200);
    expect(raw.body.object).toBe('metrics');
  });

  it('counts unsubscribes once per email, by one-click (RFC 8058) and by the preference page; opening the page counts nothing', async () => {
    const team = await t.team();
    const [ada, bob, eve] = t.people();
    const broadcast = await t.sentBroadcast(team, [ada, bob, eve], '<p>Spring is here</p>');
    await t.oneClick(ada);
    await t.oneClick(ada); // a second click of the same email's link: counted once
    const saved = await fetch(`${t.unsubscribeUrl(bob)}/preferences`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'unsubscribe_all=1',
    });
    expect(saved.status).toBe(200);
    await saved.arrayBuffer();
    await t.oneClick(bob); // the page, then one-click: still one
    const page = await fetch(t.unsubscribeUrl(eve)); // a GET (a link scanner) changes and counts nothing
    expect(page.status).toBe(200);
    await page.arrayBuffer();

    const { data, error } = await team.resend.emails.metrics({
      metrics: ['delivered', 'unsubscribed', 'unsubscribe_rate'],
    });
    expect(error).toBeNull();
    expect(data!.totals).toEqual({ delivered: 3, unsubscribed: 2, unsubscribe_rate: 0.6667 });
    const byBroadcast = await team.resend.emails.metrics({
      dimensions: ['broadcast'],
      metrics: ['unsubscribed'],
    });
    expect(byBroadcast.data!.data).toEqual([
      { broadcast_id: broadcast, broadcast_name: 'Spring sale', unsubscribed: 2 },
    ]);
    const list = (await team.resend.emails.list({ limit: 100 })).data!.data;
    const idOf = (to: string) => list.find((e) => e.to.includes(to))!.id;
    const byEmail = await team.resend.emails.metrics({
      dimensions: ['email'],
      emailId: [idOf(ada), idOf(eve)],
      metrics: ['unsubscribed'],
    });
    expect(byEmail.error).toBeNull();
    expect(byEmail.data!.data).toEqual(
      [
        { email_id: idOf(ada), unsubscribed: 1 },
        { email_id: idOf(eve), unsubscribed: 0 },
      ].sort((a, b) => (a.email_id < b.email_id ? -1 : 1)),
    );
  });
}

export function broadcastAnalyticsScenarios(current: () => Stack): void {
  const t = setup(current);

  it('lists a broadcast’s recipients by event type, bounce type and address, with their opens and clicks, and its clicked links', async () => {
    const team = await t.team();
    const [ada, bob, eve] = ['ada', 'bob', 'eve'].map((n) => `${n}.${t.tag()}@example.test`) as [
      string,
      string,
      string,
    ];
    const hard = `bounced+${t.tag()}@resend.dev`;
    const id = await t.sentBroadcast(
      team,
      [ada, bob, eve, hard],
      `<p>Hi {{{contact.first_name|there}}}: <a href="${LINK}">sale</a> <a href="https://shop.test/faq">faq</a></p>`,
    );
    const adaMail = t.tracking(t.copiesTo(ada)[0]!.parsed.html ?? '');
    const bobMail = t.tracking(t.copiesTo(bob)[0]!.parsed.html ?? '');
    await t.hit(adaMail.pixel);
    await t.hit(adaMail.pixel);
    await t.hit(adaMail.links[0]!);
    await t.hit(adaMail.links[0]!);
    await t.hit(adaMail.links[1]!);
    await t.hit(bobMail.links[0]!);

    const rows = async (type: string, extra: Record<string, unknown> = {}) => {
      const { data, error } = await team.resend.broadcasts.recipients(id, { type, ...extra } as never);
      expect(error).toBeNull();
      return data!;
    };
    const sent = await rows('sent');
    expect(sent.data.map((r) => r.email).sort()).toEqual([ada, bob, eve].sort());
    expect(sent.data.every((r) => typeof r.contact_id === 'string')).toBe(true);
    expect((await rows('delivered')).data).toHaveLength(3);
    expect((await rows('bounced')).data).toEqual([
      expect.objectContaining({ email: hard, bounce_type: 'permanent' }),
    ]);
    expect((await rows('bounced', { bounceType: 'permanent' })).data.map((r) => r.email)).toEqual([hard]);
    expect((await rows('bounced', { bounceType: 'transient' })).data).toEqual([]);
    expect((await rows('opened')).data).toEqual([expect.objectContaining({ email: ada, count: 2 })]);
    const clicked = (await rows('clicked')).data;
    expect(clicked.map((r) => [r.email, r.count]).sort()).toEqual(
      [
        [ada, 3],
        [bob, 1],
      ].sort(),
    );
    expect(clicked.find((r) => r.email === ada)!.clicked_links).toEqual([
      { url: 'https://shop.test/faq', clicks: 1 },
      { url: LINK, clicks: 2 },
    ]);
    expect((await rows('complained')).data).toEqual([]);
    expect((await rows('sent', { email: bob.toUpperCase() })).data.map((r) => r.email)).toEqual([bob]);

    // pages: two rows, then the third, then back
    const p1 = await rows('sent', { limit: 2 });
    expect(p1).toMatchObject({ object: 'list', has_more: true });
    const p2 = await rows('sent', { limit: 2, after: p1.data[1]!.id });
    expect(p2.has_more).toBe(false);
    expect([...p1.data, ...p2.data].map((r) => r.email).sort()).toEqual(sent.data.map((r) => r.email).sort());
    const back = await rows('sent', { limit: 2, before: p2.data[0]!.id });
    expect(back.data.map((r) => r.id)).toEqual(p1.data.map((r) => r.id));

    const links = await team.resend.broadcasts.clickedLinks(id);
    expect(links.error).toBeNull();
    expect(links.data).toMatchObject({ object: 'list', has_more: false });
    expect(
      links.data!.data.map(({ url, clicks, unique_clicks }) => ({ url, clicks, unique_clicks })),
    ).toEqual([
      { url: 'https://shop.test/faq', clicks: 1, unique_clicks: 1 },
      { url: LINK, clicks: 3, unique_clicks: 2 },
    ]);
    const first = await team.resend.broadcasts.clickedLinks(id, { limit: 1 });
    expect(first.data).toMatchObject({ has_more: true, data: [{ url: 'https://shop.test/faq' }] });
    const next = await team.resend.broadcasts.clickedLinks(id, { limit: 1, after: first.data!.data[0]!.id });
    expect(next.data).toMatchObject({ has_more: false, data: [{ url: LINK }] });

    // the broadcast in the metrics: by broadcast, with its name
    const m = await team.resend.emails.metrics({
      dimensions: ['broadcast'],
      metrics: ['received', 'delivered', 'bounced', 'unique_clicked'],
    });
    expect(m.error).toBeNull();
    expect(m.data!.data).toEqual([
      {
        broadcast_id: id,
        broadcast_name: 'Spring sale',
        received: 4,
        delivered: 3,
        bounced: 1,
        unique_clicked: 2,
      },
    ]);
  });

  it('refuses bad parameters with 422 naming the field; another team’s broadcast is 404', async () => {
    const team = await t.team();
    const stranger = await t.team();
    const id = await t.sentBroadcast(team, [`solo.${t.tag()}@example.test`], '<p>hi</p>');
    const cases: [string, string][] = [
      [`/broadcasts/${id}/recipients`, 'type'],
      [`/broadcasts/${id}/recipients?type=read`, 'type'],
      [`/broadcasts/${id}/recipients?type=opened&bounce_type=permanent`, 'bounce_type'],
      [`/broadcasts/${id}/recipients?type=sent&email=nobody`, 'email'],
      [`/broadcasts/${id}/recipients?type=sent&limit=0`, 'limit'],
      [`/broadcasts/${id}/recipients?type=sent&after=%2F%2F`, 'after'],
    ];
    for (const [path, field] of cases) {
      const res = await t.raw(team, path);
      expect(res.status, path).toBe(422);
      expect(res.body.message.startsWith(`${field}: `), res.body.message).toBe(true);
    }
    for (const path of [`/broadcasts/${id}/recipients?type=sent`, `/broadcasts/${id}/clicked-links`]) {
      const res = await t.raw(stranger, path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ name: 'not_found', message: 'Broadcast not found' });
    }
    const sdk = await stranger.resend.broadcasts.recipients(id, { type: 'sent' });
    expect(sdk.error).toMatchObject({ statusCode: 404 });
  });

  it('lists the recipients who unsubscribed through the email’s link, each once however often they click', async () => {
    const team = await t.team();
    const [ada, bob, eve] = t.people();
    const id = await t.sentBroadcast(team, [ada, bob, eve], '<p>Spring is here</p>');
    const unsubscribed = async () => {
      const { data, error } = await team.resend.broadcasts.recipients(id, { type: 'unsubscribed' });
      expect(error).toBeNull();
      return data!.data;
    };
    expect(await unsubscribed()).toEqual([]);
    for (const to of [ada, ada, bob]) await t.oneClick(to);
    const rows = await unsubscribed();
    expect(rows.map((r) => r.email).sort()).toEqual([ada, bob].sort());
    expect(rows.every((r) => typeof r.contact_id === 'string')).toBe(true);
    // the contacts left: the send path skips them
    expect((await team.resend.contacts.get({ email: ada })).data?.unsubscribed).toBe(true);
    expect((await team.resend.contacts.get({ email: eve })).data?.unsubscribed).toBe(false);
  });
}
