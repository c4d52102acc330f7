import { describe, expect, it } from 'vitest';
import { PetrelError } from '@petrel/contracts';
import { emailToDeliver, ManualClock, MemoryDeliveryRecords, SequentialIds } from '@petrel/testing';
import { engagementTracker, redirectTarget } from './record-engagement.js';
import { signClickToken, signOpenToken, trackingLinks } from './tracking-token.js';
import { signUnsubscribeToken } from '../audience/unsubscribe-token.js';

const SECRET = 'k';
const TEAM = 'team-1';

function setup() {
  const clock = new ManualClock();
  const records = new MemoryDeliveryRecords();
  const email = emailToDeliver({
    status: 'delivered',
    content: { tags: [{ name: 'kind', value: 'welcome' }] },
  });
  records.put(email);
  let reads = 0;
  const errors: unknown[] = [];
  const emails = {
    async get(teamId: string, id: string) {
      reads++;
      return records.get(teamId, id) ?? null;
    },
    recordEvents: records.recordEvents.bind(records),
  };
  const tracker = engagementTracker({
    emails,
    secret: SECRET,
    clock,
    ids: new SequentialIds(),
    onRecordError: (e) => errors.push(e),
  });
  const links = trackingLinks({ secret: SECRET, publicUrl: 'https://p.test/', clock });
  const token = (url: string) => url.slice(url.lastIndexOf('/') + 1);
  const claims = { teamId: TEAM, emailId: email.id, recipient: 'ada@example.test' };
  return {
    clock,
    records,
    email,
    tracker,
    errors,
    reads: () => reads,
    emails,
    openToken: token(links.openUrl(claims)),
    clickToken: (url: string) => token(links.clickUrl({ ...claims, url })),
  };
}

const visit = { ipAddress: '203.0.113.9', userAgent: 'Mozilla/5.0 (test)' };

async function refusal(p: Promise<unknown>): Promise<{ status: number; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PetrelError);
  return { status: (err as PetrelError).statusCode, message: (err as PetrelError).message };
}

describe('engagementTracker', () => {
  it('an open records email.opened with the email data and moves last_event to opened', async () => {
    const s = setup();
    await s.tracker.open(s.openToken);
    const [event] = s.records.timeline(TEAM, s.email.id);
    expect(event).toMatchObject({
      type: 'email.opened',
      teamId: TEAM,
      data: {
        email_id: s.email.id,
        created_at: s.email.createdAt,
        message_id: s.email.messageId,
        from: s.email.content.from,
        to: s.email.content.to,
        subject: s.email.content.subject,
        tags: { kind: 'welcome' },
      },
    });
    expect(s.records.get(TEAM, s.email.id)!.status).toBe('opened');
    expect(s.records.published).toHaveLength(1);
  });

  it('a click records email.clicked with Resend’s click data and returns the exact URL', async () => {
    const s = setup();
    const url = 'https://shop.test/p?id=1&ref=mail#top';
    expect(await s.tracker.click(s.clickToken(url), visit)).toBe(url);
    const [event] = s.records.timeline(TEAM, s.email.id);
    expect(event).toMatchObject({
      type: 'email.clicked',
      data: {
        email_id: s.email.id,
        click: {
          ipAddress: visit.ipAddress,
          link: url,
          timestamp: new Date(s.clock.now()).toISOString(),
          userAgent: visit.userAgent,
        },
      },
    });
    expect(s.records.get(TEAM, s.email.id)!.status).toBe('clicked');
    // a later open is recorded but does not move last_event back
    await s.tracker.open(s.openToken);
    expect(s.records.get(TEAM, s.email.id)!.status).toBe('clicked');
    expect(s.records.timeline(TEAM, s.email.id).map((e) => e.type)).toEqual([
      'email.clicked',
      'email.opened',
    ]);
  });

  it('only checks the token when asked not to record (a HEAD request)', async () => {
    const s = setup();
    await s.tracker.open(s.openToken, false);
    expect(await s.tracker.click(s.clickToken('https://shop.test/'), visit, false)).toBe(
      'https://shop.test/',
    );
    expect(s.records.timeline(TEAM, s.email.id)).toEqual([]);
    expect((await refusal(s.tracker.open('a.b', false))).status).toBe(404);
  });

  it('records every repeat, reading the email once while it is cached', async () => {
    const s = setup();
    for (let i = 0; i < 5; i++) await s.tracker.open(s.openToken);
    expect(s.records.timeline(TEAM, s.email.id)).toHaveLength(5);
    expect(s.reads()).toBe(1);
    s.clock.advance(61_000);
    await s.tracker.open(s.openToken);
    expect(s.reads()).toBe(2);
  });

  it('refuses tampered, foreign and expired tokens: 404 / 410, nothing recorded', async () => {
    const s = setup();
    const click = s.clickToken('https://shop.test/');
    const flip = (t: string, i: number) => t.slice(0, i) + (t[i] === 'A' ? 'B' : 'A') + t.slice(i + 1);
    for (const bad of [
      flip(click, 5),
      flip(click, click.length - 1),
      `${click}x`,
      s.openToken, // an open token is no click token
      signClickToken(
        { teamId: TEAM, emailId: s.email.id, recipient: 'a', url: 'https://evil.test/', expiresAt: 4e9 },
        'other-key',
      ),
      signUnsubscribeToken(
        { teamId: TEAM, emailId: s.email.id, recipient: 'a', topicId: null, expiresAt: 4e9 },
        SECRET,
      ),
      '',
      '.',
      'a.b',
    ]) {
      expect(await refusal(s.tracker.click(bad, visit)), bad).toEqual({
        status: 404,
        message: 'token: this link is not valid',
      });
    }
    expect((await refusal(s.tracker.open(click))).status).toBe(404);
    s.clock.advance(366 * 24 * 3600 * 1000);
    expect(await refusal(s.tracker.click(click, visit))).toEqual({
      status: 410,
      message: 'token: this link has expired',
    });
    expect((await refusal(s.tracker.open(s.openToken))).status).toBe(410);
    expect(s.records.timeline(TEAM, s.email.id)).toEqual([]);
  });

  it('a signed token with a non-http URL is refused, never redirected', async () => {
    const s = setup();
    const js = signClickToken(
      { teamId: TEAM, emailId: s.email.id, recipient: 'a', url: 'javascript:alert(1)', expiresAt: 4e9 },
      SECRET,
    );
    expect((await refusal(s.tracker.click(js, visit))).status).toBe(404);
  });

  it('serves the person even when the write fails or the email expired', async () => {
    const s = setup();
    s.emails.recordEvents = async () => {
      throw new Error('redis down');
    };
    expect(await s.tracker.click(s.clickToken('https://shop.test/'), visit)).toBe('https://shop.test/');
    expect(s.errors).toHaveLength(1);

    const gone = setup();
    gone.emails.get = async () => null;
    await gone.tracker.open(gone.openToken);
    expect(gone.records.timeline(TEAM, gone.email.id)).toEqual([]);
  });
});

describe('redirectTarget', () => {
  it('is the URL itself when it is printable ASCII, else what a browser would request', () => {
    expect(redirectTarget('https://a.test/x?y=1&z=%41#f')).toBe('https://a.test/x?y=1&z=%41#f');
    expect(redirectTarget('HTTPS://A.test')).toBe('HTTPS://A.test');
    expect(redirectTarget('https://bücher.test/ä ö')).toBe('https://xn--bcher-kva.test/%C3%A4%20%C3%B6');
    expect(redirectTarget('javascript:alert(1)')).toBeNull();
    expect(redirectTarget('not a url')).toBeNull();
  });
});

describe('tracking tokens', () => {
  it('round-trip their claims, each kind under its own purpose', () => {
    const claims = { teamId: TEAM, emailId: 'e', recipient: 'r@x.test', expiresAt: 4e9 };
    const open = signOpenToken(claims, SECRET);
    const click = signClickToken({ ...claims, url: 'https://x.test/' }, SECRET);
    expect(open).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(click).toMatch(/^[\w-]+\.[\w-]+$/);
    expect(open.split('.')[0]).not.toBe(click.split('.')[0]);
  });
});
