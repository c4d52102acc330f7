/**
 * A broadcast's emails show what their recipients got, on every surface: with the official
 * `resend` SDK a broadcast whose subject, html and text are personalised
 * (`{{{contact.first_name|there}}}`, the unsubscribe link) goes to two contacts — one with a first
 * name, one falling back to the default — and, for each, the delivered message in the SMTP sink
 * is compared field by field with `GET /emails/:id` (subject, html, text), `GET /emails` (subject),
 * `GET /emails/:id/events` (each event's subject) and the signed webhook payloads received by a
 * real HTTP endpoint (their subject). The contact renamed after the send changes none of it: the
 * answers stay the delivered message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startHttpReceiver,
  waitUntil,
  type HttpReceiver,
  type RecordedRequest,
  type SinkMessage,
} from '@petrel/testing';
import { startStack, type Stack } from './helpers.js';

let stack: Stack;
let receiver: HttpReceiver;
beforeAll(async () => {
  [stack, receiver] = await Promise.all([startStack(), startHttpReceiver()]);
});
afterAll(async () => {
  await receiver?.stop();
  await stack?.stop();
});

/**
 * A delivered part's content: the line break the parser leaves at its end belongs to the boundary
 * that follows the part (RFC 2046 section 5.1.1), not to the html or text that was sent.
 */
const part = (content: string | undefined): string | undefined => content?.replace(/\r?\n$/, '');

interface WebhookEvent {
  type: string;
  data: { email_id?: string; subject?: string };
}

describe('a broadcast email as its recipient got it', () => {
  it('GET /emails/:id, GET /emails, the events route and the webhooks equal the delivered message, for a name and a fallback', async () => {
    const { resend } = stack;
    const hook = await resend.webhooks.create({
      endpoint: `${receiver.url}/hook`,
      events: ['email.sent', 'email.delivered'],
    });
    expect(hook.error).toBeNull();

    const segment = await resend.segments.create({ name: 'personalised' });
    expect(segment.error).toBeNull();
    const alice = 'alice@people.test';
    const bob = 'bob@people.test';
    for (const contact of [{ email: alice, firstName: 'Alice' }, { email: bob }]) {
      const { error } = await resend.contacts.create({ ...contact, segments: [{ id: segment.data!.id }] });
      expect(error).toBeNull();
    }

    const created = await resend.broadcasts.create({
      segmentId: segment.data!.id,
      from: 'Acme <news@acme.test>',
      subject: 'Hello {{{contact.first_name|there}}}',
      html: '<p>Hi {{{contact.first_name|there}}} &amp; welcome</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>',
      text: 'Hi {{{contact.first_name|there}}}. Leave: {{{RESEND_UNSUBSCRIBE_URL}}}',
    });
    expect(created.error).toBeNull();
    expect((await resend.broadcasts.send(created.data!.id)).error).toBeNull();

    // both delivered: the sink has the messages and the API says so
    const mail = await stack.sink.waitFor(2, 30_000);
    const delivered = new Map<string, SinkMessage>(mail.map((m) => [m.envelope.to[0]!, m]));
    expect([...delivered.keys()].sort()).toEqual([alice, bob]);
    const listed = await waitUntil(
      async () => {
        const { data } = await resend.emails.list();
        const items = data?.data ?? [];
        return items.length === 2 && items.every((e) => e.last_event === 'delivered') ? items : null;
      },
      { timeoutMs: 30_000, message: 'both broadcast emails delivered' },
    );
    // sent + delivered of each email, signed
    const requests = await receiver.waitFor(4, 30_000);
    const svix = (r: RecordedRequest) =>
      Object.fromEntries(['id', 'timestamp', 'signature'].map((k) => [k, String(r.headers[`svix-${k}`])]));
    const hooks = requests.map(
      (r) =>
        resend.webhooks.verify({
          payload: r.body,
          headers: svix(r) as { id: string; timestamp: string; signature: string },
          webhookSecret: hook.data!.signing_secret,
        }) as unknown as WebhookEvent,
    );

    const expected: Record<string, { subject: string; name: string }> = {
      [alice]: { subject: 'Hello Alice', name: 'Alice' },
      [bob]: { subject: 'Hello there', name: 'there' },
    };
    const emailIds = new Map<string, string>();
    for (const address of [alice, bob]) {
      const message = delivered.get(address)!;
      const { subject, name } = expected[address]!;
      // what was delivered: personalised, with the recipient's own unsubscribe link
      expect(message.parsed.subject).toBe(subject);
      const html = part(message.parsed.html);
      const text = part(message.parsed.text);
      const link = /href="([^"]+)"/.exec(html ?? '')?.[1];
      expect(link).toMatch(/\/unsubscribe\//);
      expect(html).toBe(`<p>Hi ${name} &amp; welcome</p><a href="${link}">Unsubscribe</a>`);
      expect(text).toBe(`Hi ${name}. Leave: ${link!.replaceAll('&amp;', '&')}`);

      const item = listed.find((e) => e.to.includes(address));
      expect(item?.subject).toBe(message.parsed.subject);
      const id = item!.id;
      emailIds.set(address, id);

      const got = await resend.emails.get(id);
      expect(got.error).toBeNull();
      expect(got.data!.subject).toBe(message.parsed.subject);
      expect(got.data!.html).toBe(html);
      expect(got.data!.text).toBe(text);

      const events = await stack.http(`/emails/${id}/events`);
      expect(events.status).toBe(200);
      const timeline = events.body.data as WebhookEvent[];
      const withSubject = timeline.filter((e) => e.data.subject !== undefined);
      expect(withSubject.map((e) => e.type)).toEqual(['email.sent', 'email.delivered']);
      for (const e of withSubject) expect(e.data.subject).toBe(message.parsed.subject);

      const payloads = hooks.filter((h) => h.data.email_id === id);
      expect(payloads.map((h) => h.type).sort()).toEqual(['email.delivered', 'email.sent']);
      for (const h of payloads) expect(h.data.subject).toBe(message.parsed.subject);
    }

    // the contact changed since: what was delivered stays the answer
    const renamed = await resend.contacts.update({ email: alice, firstName: 'Alicia' });
    expect(renamed.error).toBeNull();
    const again = await resend.emails.get(emailIds.get(alice)!);
    expect(again.data!.subject).toBe(delivered.get(alice)!.parsed.subject);
    expect(again.data!.html).toBe(part(delivered.get(alice)!.parsed.html));
    expect(again.data!.text).toBe(part(delivered.get(alice)!.parsed.text));
  });
});
