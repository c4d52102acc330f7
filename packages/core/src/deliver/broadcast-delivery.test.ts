import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps, type MemoryDeliverDeps } from '@petrel/testing';
import { unsubscribeLinks } from '../audience/unsubscribe-token.js';
import { broadcastEmailContent } from '../broadcasts/personal-content.js';
import { deliverEmail } from './deliver-email.js';
import type { EmailToDeliver } from '../emails/record.js';

const TEAM = 'team-1';
const BROADCAST = 'b-1';
const job = (email: EmailToDeliver) => ({ teamId: TEAM, emailId: email.id, attemptsMade: 0 });

/** A broadcast's email as the fan-out stores it: no html/text, one recipient, its contact. */
async function setup(opts: { contact?: boolean; values?: EmailToDeliver['contactValues'] } = {}) {
  const deps = memoryDeliverDeps();
  const created = await deps.contactProperties.create(TEAM, {
    key: 'company',
    type: 'string',
    fallback_value: 'your company',
  });
  if (!created.ok) throw new Error('property');
  let contactId = 'contact-gone';
  if (opts.contact !== false) {
    const c = await deps.contacts.create(TEAM, {
      email: 'ada@example.test',
      first_name: 'Ada <3',
      last_name: null,
      unsubscribed: false,
      properties: { [created.id]: 'Analytical Engines' },
      segments: [],
      topics: [],
    });
    if (!c.ok) throw new Error('contact');
    contactId = c.id;
  }
  deps.recipients.contact('ada@example.test');
  const email = emailToDeliver({
    broadcastId: BROADCAST,
    contactId,
    content: { to: ['ada@example.test'], subject: 'stored subject', html: undefined },
    ...(opts.values !== undefined && { contactValues: opts.values }),
  });
  deps.emails.put(email);
  deps.broadcasts.put(TEAM, BROADCAST, 'sent', {
    from: 'Acme <news@acme.test>',
    subject: 'Hi {{{contact.first_name|there}}}',
    html: '<p>Hi {{{contact.first_name|there}}} at {{{contact.company}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">leave</a>',
    text: 'Hi {{{contact.first_name|there}}} ({{{contact.email}}}) {{{UNSUBSCRIBE_URL}}}',
    reply_to: ['help@acme.test'],
  });
  return { deps, email };
}

const built = (deps: MemoryDeliverDeps) => deps.mime.built.at(-1)!;

describe('deliverEmail of a broadcast email', () => {
  it('sends the broadcast content personalised for the contact, with its unsubscribe link', async () => {
    const { deps, email } = await setup();
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    const message = built(deps);
    const url = 'https://petrel.test/unsubscribe/ada@example.test/all';
    expect(message.content).toMatchObject({
      from: 'Acme <news@acme.test>',
      subject: 'Hi Ada <3',
      reply_to: ['help@acme.test'],
      html: `<p>Hi Ada &lt;3 at Analytical Engines</p><a href="${url}">leave</a>`,
      text: `Hi Ada <3 (ada@example.test) ${url}`,
    });
    expect(message.extraHeaders).toMatchObject({ 'List-Unsubscribe': `<${url}>` });
    expect(deps.emails.get(TEAM, email.id)!.status).toBe('delivered');
  });

  it('renders the contact values stored at the fan-out: a contact renamed since changes nothing, and none is read', async () => {
    const { deps, email } = await setup({
      values: { first_name: 'Ada <3', properties: { company: 'Analytical Engines' } },
    });
    let reads = 0;
    const get = deps.contacts.get.bind(deps.contacts);
    deps.contacts.get = (...args) => {
      reads++;
      return get(...args);
    };
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(reads).toBe(0);
    expect(built(deps).content).toMatchObject({
      subject: 'Hi Ada <3',
      html: expect.stringContaining('<p>Hi Ada &lt;3 at Analytical Engines</p>') as string,
    });
  });

  it('stored values without a name or property render the fallbacks, whatever the contact holds now', async () => {
    const { deps, email } = await setup({ values: { fallbacks: { company: 'your company' } } });
    await deliverEmail(job(email), deps);
    expect(built(deps).content).toMatchObject({
      subject: 'Hi there',
      html: expect.stringContaining('<p>Hi there at your company</p>') as string,
      text: expect.stringContaining('Hi there (ada@example.test)') as string,
    });
  });

  it("GET /emails/:id's render equals the message sent, its unsubscribe link and List-Unsubscribe included", async () => {
    const { deps, email } = await setup({ values: { first_name: 'Ada' } });
    // real signed links: the worker sends a minute after the email was created, the read comes later
    let clock = email.createdMs + 60_000;
    deps.unsubscribe = unsubscribeLinks({
      secret: 's',
      publicUrl: 'https://petrel.test',
      clock: { now: () => clock },
    });
    await deliverEmail(job(email), deps);
    const sent = built(deps);
    clock += 3_600_000;
    const read = await broadcastEmailContent({ ...email, broadcastId: BROADCAST }, deps);
    expect(read).toEqual({ subject: sent.content.subject, html: sent.content.html, text: sent.content.text });
    const link = /href="([^"]+)"/.exec(read!.html!)![1]!;
    expect(sent.extraHeaders).toMatchObject({ 'List-Unsubscribe': `<${link}>` });
  });

  it('a contact deleted since the fan-out gets the fallbacks', async () => {
    const { deps, email } = await setup({ contact: false });
    await deliverEmail(job(email), deps);
    expect(built(deps).content).toMatchObject({
      subject: 'Hi there',
      html: expect.stringContaining('<p>Hi there at your company</p>') as string,
    });
  });

  it.each([
    ['canceled', (d: MemoryDeliverDeps) => d.broadcasts.put(TEAM, BROADCAST, 'canceled')],
    ['deleted', (d: MemoryDeliverDeps) => d.broadcasts.remove(TEAM, BROADCAST)],
  ])('a %s broadcast cancels its email and sends nothing', async (_what, change) => {
    const { deps, email } = await setup();
    change(deps);
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'skipped', status: 'canceled' });
    expect(deps.smtp.sent).toHaveLength(0);
    expect(deps.emails.get(TEAM, email.id)!.status).toBe('canceled');
    expect(deps.emails.timeline(TEAM, email.id).map((e) => e.type)).toEqual(['email.canceled']);
    // a second run of the job finds it canceled
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'skipped', status: 'canceled' });
  });

  it('a contact who unsubscribed after the fan-out is left out at send time', async () => {
    const { deps, email } = await setup();
    deps.recipients.contact('ada@example.test', { unsubscribed: true });
    expect(await deliverEmail(job(email), deps)).toMatchObject({
      kind: 'failed',
      stage: 'decide-recipients',
    });
    expect(deps.smtp.sent).toHaveLength(0);
  });

  it('content without contact placeholders reads no contact', async () => {
    const { deps, email } = await setup();
    deps.broadcasts.put(TEAM, BROADCAST, 'sent', { html: '<p>Hello all</p>', text: null });
    let reads = 0;
    const get = deps.contacts.get.bind(deps.contacts);
    deps.contacts.get = (...args) => {
      reads++;
      return get(...args);
    };
    await deliverEmail(job(email), deps);
    expect(reads).toBe(0);
    expect(built(deps).content.html).toBe('<p>Hello all</p>');
  });

  it('a plain email never reads a broadcast', async () => {
    const deps = memoryDeliverDeps();
    const email = emailToDeliver();
    deps.emails.put(email);
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'delivered' });
    expect(deps.broadcasts.reads).toEqual([]);
  });
});

describe('deliverEmail of a broadcast email under protection (broadcasts/protection.ts)', () => {
  const strict = {
    thresholds: { complaintRate: 0.003, hardBounceRate: 0.05, minSample: 10 },
    holdRecheckMs: 5_000,
  };

  it('a paused broadcast holds its email: nothing sent, nothing recorded, the job looks again later', async () => {
    const { deps, email } = await setup();
    deps.protection = strict;
    deps.broadcasts.put(TEAM, BROADCAST, 'paused', { from: 'Acme <news@acme.test>', subject: 'Hi' });
    const now = deps.clock.now();
    expect(await deliverEmail(job(email), deps)).toEqual({ kind: 'held', untilMs: now + 5_000 });
    expect(deps.smtp.sent).toHaveLength(0);
    expect(deps.emails.get(TEAM, email.id)!.status).toBe('queued');
  });

  it('a hard bounce with the rate over the threshold pauses the broadcast and tells the observer', async () => {
    const { deps, email } = await setup();
    deps.protection = strict;
    // the counters as the store's script leaves them once this bounce is recorded
    deps.broadcasts.counts.set(`${TEAM}:${BROADCAST}`, { sent: 10, hardBounced: 1, complained: 0 });
    deps.smtp.answer({ kind: 'hard_fail', code: 550, detail: '550 5.1.1 no such user' });
    expect(await deliverEmail(job(email), deps)).toMatchObject({ kind: 'bounced', bounce: 'Permanent' });
    const reason = "hard-bounce rate 10 % over 10 sent emails exceeds the team's threshold of 5 %";
    expect(deps.broadcasts.pauses).toEqual([{ id: BROADCAST, reason }]);
    expect(deps.observer.pausedBroadcasts).toMatchObject([
      { teamId: TEAM, broadcastId: BROADCAST, reason, breach: { reason: 'hard_bounce_rate' } },
    ]);
  });

  it('within the thresholds, or on a plain delivery, nothing is paused', async () => {
    const { deps, email } = await setup();
    deps.protection = strict;
    deps.broadcasts.counts.set(`${TEAM}:${BROADCAST}`, { sent: 100, hardBounced: 5, complained: 0 });
    deps.smtp.answer({ kind: 'hard_fail', code: 550, detail: '550 5.1.1 no such user' });
    await deliverEmail(job(email), deps);
    expect(deps.broadcasts.pauses).toEqual([]);

    const again = await setup();
    again.deps.broadcasts.counts.set(`${TEAM}:${BROADCAST}`, {
      sent: 1000,
      hardBounced: 1000,
      complained: 0,
    });
    expect(await deliverEmail(job(again.email), again.deps)).toEqual({ kind: 'delivered' });
    // a send only lowers the rates: the counters are not even read
    expect(again.deps.broadcasts.pauses).toEqual([]);
  });
});
