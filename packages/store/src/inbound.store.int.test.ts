/**
 * The inbound store on a real Redis (and, in the integration-cluster project, a Redis Cluster):
 * received emails written with their email.received event in one script, read back (fields,
 * listing, raw message decompressed), expired ids dropped from the listing; and the bounce
 * processor over the real email, suppression and locator stores.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EmailEvent } from '@petrel/contracts';
import { formatVerp, newId, processReturnedMail, receiveInbound } from '@petrel/core';
import { useStoreRedis } from './redis.fixture.js';
import { EmailsStore } from './emails.store.js';
import { InboundStore, SentEmailsLocator } from './inbound.store.js';
import { SuppressionsStore } from './suppressions.store.js';

const fx = useStoreRedis('inbound');
const DAY = 86_400_000;
const fixture = (name: string): Buffer =>
  readFileSync(new URL(`../../core/src/inbound/fixtures/${name}`, import.meta.url));

const ids = { newId: () => newId(), newEventId: () => newId() };

describe('InboundStore', () => {
  it('stores a received email with its event, and reads it back', async () => {
    const store = new InboundStore(fx.redis, fx.keys, 7 * DAY);
    const raw = fixture('inbound-with-attachments.eml');
    const [{ emailId } = { emailId: '' }] = await receiveInbound(
      {
        raw,
        mailFrom: 'jane@sender.test',
        deliveries: [{ teamId: 'in-1', recipients: ['support@inbound.petrel.test'] }],
      },
      { inbound: store, clock: { now: () => Date.now(), monotonicMs: () => 0 }, ids },
    );
    const got = (await store.get('in-1', emailId))!;
    expect(got).toMatchObject({
      id: emailId,
      from: 'jane@sender.test',
      to: ['support@inbound.petrel.test'],
      subject: 'Order #42 — photo',
      html: expect.stringContaining('cid:photo1@sender.test'),
      size: raw.byteLength,
    });
    expect(got.attachments.map((a) => a.filename)).toEqual(['dot.png', 'order.csv']);
    expect(await store.get('in-1', emailId.toUpperCase())).toEqual(got);
    expect(await store.get('in-2', emailId)).toBeNull();
    expect(await store.get('in-1', 'not-an-id')).toBeNull();
    // raw: compressed in Redis, the same bytes out
    expect((await store.raw('in-1', emailId))!.equals(raw)).toBe(true);
    const stored = await fx.redis.getBuffer(fx.keys.inboundRaw('in-1', emailId));
    expect(stored!.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b])); // gzip magic
    // retention on both keys
    for (const key of [fx.keys.inboundEmail('in-1', emailId), fx.keys.inboundRaw('in-1', emailId)]) {
      const ttl = await fx.redis.pttl(key);
      expect(ttl).toBeGreaterThan(6 * DAY);
      expect(ttl).toBeLessThanOrEqual(7 * DAY);
    }
    // the event, numbered 1 of its sequence
    const [event] = await fx.events<EmailEvent>('in-1');
    expect(event).toMatchObject({
      type: 'email.received',
      teamId: 'in-1',
      data: {
        email_id: emailId,
        from: 'jane@sender.test',
        sequence: 1,
        attachments: [expect.anything(), expect.anything()],
      },
    });
  });

  it('lists newest first with cursors, without bodies, and drops expired ids', async () => {
    let now = Date.now() - 10 * DAY;
    const store = new InboundStore(fx.redis, fx.keys, 3 * DAY, { now: () => now });
    const clock = { now: () => now, monotonicMs: () => 0 };
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      const raw = Buffer.from(`From: s${i}@x.test\r\nTo: r@in.test\r\nSubject: n${i}\r\n\r\nbody ${i}\r\n`);
      const [r] = await receiveInbound(
        { raw, mailFrom: null, deliveries: [{ teamId: 'list-1', recipients: ['r@in.test'] }] },
        { inbound: store, clock, ids: { newId: () => newId(now), newEventId: () => newId(now) } },
      );
      made.push(r!.emailId);
      // the first two are received 10 days ago, the others now
      if (i === 1) now = Date.now();
      else now += 1;
    }
    // the third save dropped the two ids older than the retention from the listing
    expect(await fx.redis.zcard(fx.keys.inboundEmails('list-1'))).toBe(3);
    const first = (await store.list('list-1', { limit: 2 }))!;
    expect(first.items.map((i) => i.subject)).toEqual(['n4', 'n3']);
    expect(first.hasMore).toBe(true);
    expect(first.items[0]).not.toHaveProperty('html');
    expect(first.items[0]).not.toHaveProperty('headers');
    const next = (await store.list('list-1', { limit: 2, after: first.items[1]!.id }))!;
    expect(next.items.map((i) => i.subject)).toEqual(['n2']);
    expect(next.hasMore).toBe(false);
    expect(await store.list('list-1', { limit: 2, after: made[0]! })).toBeNull();
  });
});

describe('bounce and complaint processing over the stores', () => {
  const content = {
    from: 'Acme <hello@acme.test>',
    to: ['nobody@example.net'],
    cc: [],
    bcc: [],
    reply_to: [],
    subject: 'Welcome',
    html: '<p>x</p>',
    headers: {},
    tags: [],
    attachments: [],
  };

  const reportPorts = (emails: EmailsStore, suppressions: SuppressionsStore) => ({
    emails: new SentEmailsLocator(fx.redis, fx.keys, emails),
    suppressions,
    clock: { now: () => Date.now(), monotonicMs: () => 0 },
    ids,
    bounceDomain: 'bounce.petrel.test',
  });

  async function sentEmail(teamId: string, to: string[]): Promise<{ emails: EmailsStore; id: string }> {
    const emails = new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY });
    const id = newId();
    await fx.redis.sadd(fx.keys.teams(), teamId);
    const event: EmailEvent = {
      id: newId(),
      type: 'email.queued',
      created_at: new Date().toISOString(),
      teamId,
      data: { email_id: id },
    };
    await emails.stage(
      teamId,
      [
        {
          id,
          content: { ...content, to },
          status: 'queued',
          lane: 'send',
          dueMs: 0,
          messageId: `<${id}@acme.test>`,
          event,
        },
      ],
      new Date(),
    );
    await emails.recordEvent(teamId, id, 'delivered', { ...event, id: newId(), type: 'email.delivered' });
    return { emails, id };
  }

  it('a DSN to the VERP address: email.bounced on the email, the address suppressed', async () => {
    await fx.redis.sadd(fx.keys.teams(), 'other-team');
    const { emails, id } = await sentEmail('bounce-1', ['nobody@example.net']);
    const suppressions = new SuppressionsStore(fx.redis, fx.keys);
    const raw = fixture('postfix-user-unknown.eml')
      .toString()
      .replaceAll('0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b', id);
    const out = await processReturnedMail(
      { raw, envelopeRecipients: [formatVerp(id, 'bounce.petrel.test')] },
      reportPorts(emails, suppressions),
    );
    expect(out).toMatchObject({
      kind: 'bounced',
      teamId: 'bounce-1',
      emailId: id,
      suppressed: ['nobody@example.net'],
    });
    expect((await emails.get('bounce-1', id))!.status).toBe('bounced');
    const timeline = await emails.events('bounce-1', id);
    expect(timeline.at(-1)).toMatchObject({
      type: 'email.bounced',
      data: { bounce: { type: 'Permanent', subType: 'NoEmail' } },
    });
    expect(await suppressions.get('bounce-1', 'nobody@example.net')).toMatchObject({
      origin: 'bounce',
      source_id: id,
    });
    const types = (await fx.events<EmailEvent>('bounce-1')).map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['email.bounced', 'suppression.added']));
  });

  it('an ARF report: email.complained and a suppression with origin complaint', async () => {
    const { emails, id } = await sentEmail('complaint-1', ['shopper1982@yahoo.com']);
    const suppressions = new SuppressionsStore(fx.redis, fx.keys);
    const raw = fixture('yahoo-arf.eml').toString().replaceAll('0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b', id);
    const out = await processReturnedMail(
      { raw, envelopeRecipients: ['fbl@bounce.petrel.test'] },
      reportPorts(emails, suppressions),
    );
    expect(out).toMatchObject({
      kind: 'complained',
      teamId: 'complaint-1',
      suppressed: ['shopper1982@yahoo.com'],
    });
    expect((await emails.get('complaint-1', id))!.status).toBe('complained');
    expect(await suppressions.get('complaint-1', 'shopper1982@yahoo.com')).toMatchObject({
      origin: 'complaint',
    });
  });

  it('the locator finds no email for an unknown id', async () => {
    const locator = new SentEmailsLocator(
      fx.redis,
      fx.keys,
      new EmailsStore(fx.redis, fx.keys, DAY, { statsRetentionMs: DAY }),
    );
    expect(await locator.find(newId())).toBeNull();
    expect(await locator.find('nope')).toBeNull();
  });
});
