/**
 * Open and click tracking end to end, with the official `resend` SDK against a real SMTP sink: a
 * team with tracking on gets a pixel and rewritten links in the delivered html (one message per
 * recipient, each with their own tokens); loading the pixel records `email.opened` and following
 * a link answers 302 to exactly the original URL and records `email.clicked` with Resend's click
 * data — on the events stream the webhook dispatcher reads, numbered by the email's `sequence`,
 * and in `last_event`; a tampered or foreign token is a 4xx page and never a redirect; a team
 * without tracking gets its html untouched. The two routes are fuzzed with broken tokens.
 *
 * Shared by the single-node suite and the Redis Cluster suite: every script these scenarios
 * reach must keep to one hash slot.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import type { EmailEvent } from '@petrel/contracts';
import { ApiKeysStore, Keys, TeamSettingsStore, createRedis, type RedisClient } from '@petrel/store';
import type { SinkMessage } from '@petrel/testing';
import type { Stack } from '../helpers.js';

const FROM = 'Acme <hello@acme.test>';
const SHOP = 'https://shop.test/p?id=1&ref=mail#reviews';
const DOCS = 'HTTPS://Docs.Test/Guide/';
const HTML =
  '<html><body><p>Hi!</p>' +
  `<a href="${SHOP.replace('&', '&amp;')}" style="color:red">shop</a> ` +
  `<A HREF='${DOCS}'>docs</A> ` +
  '<a href="mailto:help@acme.test">mail</a> <a href="#top">top</a>' +
  '</body></html>';

/** A token of a tracking URL in `html` (`o`: pixel, `c`: link). */
const tokens = (html: string, kind: 'o' | 'c') =>
  [...html.matchAll(new RegExp(`https?://[^"'\\s]+/t/${kind}/([\\w.-]+)`, 'g'))].map((m) => m[1]!);

export function trackingScenarios(current: () => Stack): void {
  let stack: Stack;
  let redis: RedisClient;
  /** A team with open and click tracking on, and an SDK client with its key. */
  let tracked: { teamId: string; resend: Resend };
  let n = 0;
  const addr = (name: string) => `${name}.${++n}@tracking.test`;

  beforeAll(async () => {
    stack = current();
    redis = createRedis(stack.redis.url);
    const keys = new Keys(stack.prefix);
    const teams = new ApiKeysStore(redis, keys);
    const teamId = await teams.createTeam(`tracked-${Date.now()}`);
    const { token } = await teams.create(teamId, { name: 'tracking e2e' });
    // before the team's first send: the workers cache a team's switches for a few seconds
    expect(await new TeamSettingsStore(redis, keys).setTracking(teamId, { open: true, click: true })).toEqual(
      {
        open: true,
        click: true,
      },
    );
    tracked = { teamId, resend: new Resend(token, { baseUrl: stack.baseUrl }) };
  });
  afterAll(async () => {
    await redis?.quit();
  });
  beforeEach(() => {
    stack = current();
  });

  async function send(client: Resend, options: Parameters<Resend['emails']['send']>[0]) {
    const { data, error } = await client.emails.send(options);
    expect(error).toBeNull();
    const id = data!.id;
    await stack.settled([id]);
    return { id, copies: stack.sink.byMessageId(`<${id}@acme.test>`) };
  }

  const htmlOf = (m: SinkMessage) => m.parsed.html ?? '';
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:'), { redirect: 'manual', headers });
  const lastEvent = async (id: string, client: Resend) => (await client.emails.get(id)).data?.last_event;
  const eventsOf = async (id: string) =>
    (await stack.teamEvents('email.')).filter((e) => (e as EmailEvent).data.email_id === id);

  async function trackedEmail() {
    const to = addr('ada');
    const { id, copies } = await send(tracked.resend, { from: FROM, to, subject: 'Hi', html: HTML });
    expect(copies).toHaveLength(1);
    return { id, to, html: htmlOf(copies[0]!) };
  }

  describe('open and click tracking (team switches on)', () => {
    it('the delivered html has the pixel and rewritten http(s) links; mailto and anchors stay', async () => {
      const { html } = await trackedEmail();
      expect(tokens(html, 'o')).toHaveLength(1);
      expect(html).toMatch(
        /<img src="http:\/\/localhost:\d+\/t\/o\/[\w.-]+" width="1" height="1"[^>]*><\/body>/,
      );
      expect(tokens(html, 'c')).toHaveLength(2);
      expect(html).not.toContain('shop.test');
      expect(html).not.toContain('Docs.Test');
      expect(html).toContain('style="color:red">shop</a>');
      expect(html).toContain('<a href="mailto:help@acme.test">mail</a> <a href="#top">top</a>');
    });

    it('loading the pixel: a no-store GIF, last_event opened, email.opened on the stream', async () => {
      const { id, html } = await trackedEmail();
      const pixel = /<img src="([^"]+)"/.exec(html)![1]!;
      const res = await get(pixel);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/gif');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(
        Buffer.from(await res.arrayBuffer())
          .subarray(0, 6)
          .toString(),
      ).toBe('GIF89a');
      expect(await lastEvent(id, tracked.resend)).toBe('opened');
      const opened = (await eventsOf(id)).filter((e) => e.type === 'email.opened');
      expect(opened).toHaveLength(1);
      expect(opened[0]).toMatchObject({
        teamId: tracked.teamId,
        data: { email_id: id, from: FROM, subject: 'Hi', message_id: `<${id}@acme.test>` },
      });
      // every load is an open; a HEAD (a link checker) is not
      expect((await get(pixel)).status).toBe(200);
      expect((await fetch(pixel.replace('localhost', '127.0.0.1'), { method: 'HEAD' })).status).toBe(200);
      expect((await eventsOf(id)).filter((e) => e.type === 'email.opened')).toHaveLength(2);
    });

    it('following a link: 302 to exactly the original URL, email.clicked with the click data', async () => {
      const { id, html } = await trackedEmail();
      const links = [...html.matchAll(/href="([^"]+\/t\/c\/[^"]+)"/g)].map((m) =>
        m[1]!.replace(/&amp;/g, '&'),
      );
      const targets: string[] = [];
      for (const link of links) {
        const res = await get(link, { 'user-agent': 'TrackingTest/1.0' });
        expect(res.status).toBe(302);
        expect(res.headers.get('cache-control')).toBe('no-store');
        targets.push(res.headers.get('location')!);
      }
      expect(targets).toEqual([SHOP, DOCS]);
      expect(await lastEvent(id, tracked.resend)).toBe('clicked');
      const clicked = (await eventsOf(id)).filter((e) => e.type === 'email.clicked');
      expect(clicked.map((e) => e.data.click)).toEqual([
        {
          ipAddress: expect.any(String),
          link: SHOP,
          timestamp: expect.any(String),
          userAgent: 'TrackingTest/1.0',
        },
        {
          ipAddress: expect.any(String),
          link: DOCS,
          timestamp: expect.any(String),
          userAgent: 'TrackingTest/1.0',
        },
      ]);
      expect(clicked[0]!.data.click).toMatchObject({ ipAddress: expect.stringMatching(/127\.0\.0\.1/) });
    });

    it('the events of an email are numbered 1, 2, 3… (sequence) in the order recorded', async () => {
      const { id, html } = await trackedEmail();
      const pixel = /<img src="([^"]+)"/.exec(html)![1]!;
      await get(pixel);
      await get(pixel);
      const published = await eventsOf(id);
      expect(published.map((e) => e.type)).toEqual([
        'email.sent',
        'email.delivered',
        'email.opened',
        'email.opened',
      ]);
      // 1 is the timeline-only email.queued
      expect(published.map((e) => e.data.sequence)).toEqual([2, 3, 4, 5]);
    });

    it('several recipients: a message each, with their own pixel and link tokens', async () => {
      const [a, b] = [addr('a'), addr('b')];
      const { copies } = await send(tracked.resend, { from: FROM, to: [a, b], subject: 'Hi', html: HTML });
      expect(copies.map((c) => c.envelope.to).sort()).toEqual([[a], [b]].sort());
      const [x, y] = copies.map(htmlOf) as [string, string];
      expect(tokens(x, 'o')[0]).not.toBe(tokens(y, 'o')[0]);
      expect(tokens(x, 'c')[0]).not.toBe(tokens(y, 'c')[0]);
      // both still show both recipients in To
      for (const c of copies) expect(c.parsed.to?.map((t) => t.address).sort()).toEqual([a, b].sort());
    });

    it('a tampered, truncated or foreign token is a 4xx page, never a redirect, and records nothing', async () => {
      const { id, html } = await trackedEmail();
      const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!;
      const token = link.slice(link.lastIndexOf('/') + 1);
      const base = link.slice(0, link.lastIndexOf('/t/c/'));
      const [body, sig] = token.split('.') as [string, string];
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
      const bad = [
        `${flip(body, 10)}.${sig}`,
        `${body}.${flip(sig, 3)}`,
        `${body}.${sig.slice(0, -2)}`,
        body,
        // the payload rewritten to another URL, keeping the signature
        `${Buffer.from(
          JSON.stringify({
            ...JSON.parse(Buffer.from(body, 'base64url').toString()),
            u: 'https://evil.test/',
          }),
        ).toString('base64url')}.${sig}`,
      ];
      for (const t of bad) {
        const res = await get(`${base}/t/c/${t}`);
        expect(res.status, t).toBe(404);
        expect(res.headers.get('location')).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      }
      // the pixel's token is not a click token, nor the other way round
      const pixelToken = tokens(html, 'o')[0]!;
      expect((await get(`${base}/t/c/${pixelToken}`)).status).toBe(404);
      expect((await get(`${base}/t/o/${token}`)).status).toBe(404);
      expect((await eventsOf(id)).map((e) => e.type)).toEqual(['email.sent', 'email.delivered']);
      expect(await lastEvent(id, tracked.resend)).toBe('delivered');
    });

    it('fuzz: broken tokens on both routes never get a 5xx or a redirect', async () => {
      const { html } = await trackedEmail();
      const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1]!;
      const base = link.slice(0, link.lastIndexOf('/t/c/'));
      const good = link.slice(link.lastIndexOf('/') + 1);
      let seed = 7;
      const rnd = (k: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % k;
      };
      const alphabet = 'AZaz09-_.~%!*()+=:@';
      const cases: string[] = [
        '',
        '.',
        '..',
        'x',
        '%00',
        '%2e%2e',
        'a.b.c',
        '.'.repeat(300),
        'A'.repeat(9000),
      ];
      for (let i = 0; i < 120; i++) {
        const chars = [...good];
        for (let k = 0; k <= rnd(4); k++) chars[rnd(chars.length)] = alphabet[rnd(alphabet.length)]!;
        cases.push(rnd(5) === 0 ? chars.slice(0, rnd(chars.length)).join('') : chars.join(''));
      }
      for (const t of cases) {
        for (const kind of ['o', 'c']) {
          const res = await get(`${base}/t/${kind}/${t}`);
          await res.arrayBuffer();
          expect(res.status, `${kind} ${t}`).toBeLessThan(500);
          if (t !== good || kind !== 'c') expect([301, 302, 303, 307, 308]).not.toContain(res.status);
        }
      }
      // other methods are a 405 page
      const post = await fetch(`${base.replace('localhost', '127.0.0.1')}/t/c/${good}`, {
        method: 'POST',
        redirect: 'manual',
      });
      expect(post.status).toBe(405);
    });
  });

  describe('without tracking (the default)', () => {
    it('the html goes out untouched: no pixel, links as written', async () => {
      const { copies } = await send(stack.resend, {
        from: FROM,
        to: addr('plain'),
        subject: 'Hi',
        html: HTML,
      });
      expect(copies).toHaveLength(1);
      expect(htmlOf(copies[0]!).trim()).toBe(HTML);
    });
  });
}
