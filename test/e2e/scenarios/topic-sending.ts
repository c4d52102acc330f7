/**
 * Topic sends, unsubscribe links and the suppression list end to end, with the official `resend`
 * SDK (camelCase options: `topicId`, `defaultSubscription`) against a real SMTP sink: the topic
 * table of Resend's send API per address across to, cc and bcc, unsubscribed and suppressed
 * recipients skipped, an email nobody is left for, RFC 8058 one-click unsubscribe from the link in
 * the received message, the preference page, tampered tokens, and hard bounces suppressing.
 *
 * Shared by the single-node suite and the Redis Cluster suite: every script and pipeline these
 * scenarios reach must keep to one hash slot.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { SinkMessage, SinkPlan } from '@petrel/testing';
import type { Stack } from '../helpers.js';

/** The sink plan the scenarios need: one address that hard-bounces. */
export const TOPIC_SENDING_PLAN: SinkPlan = {
  'gone@bounce.test': [{ at: 'rcpt', code: 550, message: '5.1.1 No such user' }],
};

export function topicSendingScenarios(current: () => Stack): void {
  let stack: Stack;
  beforeEach(() => {
    stack = current();
  });
  const FROM = 'Acme <news@acme.test>';
  let n = 0;
  /** A fresh address per test run and name, so tests do not see each other's contacts. */
  const addr = (name: string) => `${name}.${++n}@topics.test`;

  async function topic(defaultSubscription: 'opt_in' | 'opt_out'): Promise<string> {
    const { data, error } = await stack.resend.topics.create({ name: `News ${++n}`, defaultSubscription });
    expect(error).toBeNull();
    return data!.id;
  }

  async function contact(
    email: string,
    opts: { unsubscribed?: boolean; topics?: { id: string; subscription: 'opt_in' | 'opt_out' }[] } = {},
  ) {
    const { error } = await stack.resend.contacts.create({ email, ...opts });
    expect(error).toBeNull();
  }

  /** Sends, waits until the email can send nothing more, and returns it and its copies. */
  async function sendAndSettle(options: Parameters<Stack['resend']['emails']['send']>[0]) {
    const { data, error } = await stack.resend.emails.send(options);
    expect(error).toBeNull();
    const id = data!.id;
    await stack.settled([id]);
    const copies = stack.sink.byMessageId(`<${id}@acme.test>`);
    const { body } = await stack.http(`/emails/${id}`);
    return {
      id,
      copies,
      email: body as { last_event: string; recipients?: { email: string; status: string }[] },
    };
  }

  const envelopeOf = (copies: SinkMessage[]) => copies.flatMap((c) => c.envelope.to).sort();
  const header = (m: SinkMessage, name: string) =>
    m.parsed.headers.find((h) => h.key === name.toLowerCase())?.value;

  describe('sending with topicId (spec 3.3, per recipient)', () => {
    it('opt_in topic: opted in, non-contact and silent contact receive; opted out and unsubscribed do not', async () => {
      const t = await topic('opt_in');
      const [inn, out, stranger, silent, unsub] = ['in', 'out', 'stranger', 'silent', 'unsub'].map(addr) as [
        string,
        string,
        string,
        string,
        string,
      ];
      await contact(inn, { topics: [{ id: t, subscription: 'opt_in' }] });
      await contact(out, { topics: [{ id: t, subscription: 'opt_out' }] });
      await contact(silent);
      await contact(unsub, { unsubscribed: true, topics: [{ id: t, subscription: 'opt_in' }] });

      const { copies, email } = await sendAndSettle({
        from: FROM,
        to: [inn, out],
        cc: [stranger, unsub],
        bcc: [silent],
        subject: 'Topic news',
        html: '<p>news</p>',
        topicId: t,
      });
      expect(envelopeOf(copies)).toEqual([inn, silent, stranger].sort());
      for (const m of copies) {
        // the dropped recipients are gone from the headers too
        expect(m.raw.toString()).not.toContain(out);
        expect(m.raw.toString()).not.toContain(unsub);
        expect(header(m, 'List-Unsubscribe')).toMatch(
          /^<http:\/\/localhost:\d+\/unsubscribe\/[\w-]+\.[\w-]+>$/,
        );
        expect(header(m, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
      }
      // each recipient its own link
      expect(new Set(copies.map((m) => header(m, 'List-Unsubscribe'))).size).toBe(3);
      expect(email.last_event).toBe('delivered');
      expect(email.recipients).toEqual(
        expect.arrayContaining([
          { email: inn, status: 'delivered' },
          expect.objectContaining({ email: out, status: 'failed' }),
          expect.objectContaining({ email: unsub, status: 'failed' }),
        ]),
      );
    });

    it('opt_out topic: only the contact who opted in receives; a non-contact does not', async () => {
      const t = await topic('opt_out');
      const [inn, stranger, silent] = ['in', 'stranger', 'silent'].map(addr) as [string, string, string];
      await contact(inn, { topics: [{ id: t, subscription: 'opt_in' }] });
      await contact(silent);
      const { copies } = await sendAndSettle({
        from: FROM,
        to: stranger,
        cc: silent,
        bcc: inn,
        subject: 'Digest',
        html: '<p>digest</p>',
        topicId: t,
      });
      expect(envelopeOf(copies)).toEqual([inn]);
    });

    it('every recipient opted out: nothing is sent and last_event is failed', async () => {
      const t = await topic('opt_in');
      const [a, b] = ['a', 'b'].map(addr) as [string, string];
      await contact(a, { topics: [{ id: t, subscription: 'opt_out' }] });
      await contact(b, { topics: [{ id: t, subscription: 'opt_out' }] });
      const { copies, email } = await sendAndSettle({
        from: FROM,
        to: [a, b],
        subject: 'x',
        html: '<p>x</p>',
        topicId: t,
      });
      expect(copies).toEqual([]);
      expect(email.last_event).toBe('failed');
    });

    it('an unknown topicId is a validation error at acceptance', async () => {
      const { error } = await stack.resend.emails.send({
        from: FROM,
        to: addr('x'),
        subject: 's',
        html: '<p>s</p>',
        topicId: '0190a6b2-7c3d-7000-8000-00000000dead',
      });
      expect(error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: 'topic_id: no topic with this id exists',
      });
    });

    it('a suppressed address receives nothing, with or without a topic; the others do', async () => {
      const [gone, ok] = ['suppressed', 'ok'].map(addr) as [string, string];
      const added = await stack.http('/suppressions', {
        method: 'POST',
        body: JSON.stringify({ email: gone }),
      });
      expect(added.status).toBeLessThan(300);
      const { copies, email } = await sendAndSettle({
        from: FROM,
        to: [ok, gone.toUpperCase()],
        subject: 's',
        html: '<p>s</p>',
      });
      expect(envelopeOf(copies)).toEqual([ok]);
      expect(email.recipients).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ email: gone.toUpperCase(), status: 'suppressed' }),
        ]),
      );
      const alone = await sendAndSettle({ from: FROM, to: gone, subject: 's', html: '<p>s</p>' });
      expect(alone.copies).toEqual([]);
      expect(alone.email.last_event).toBe('failed');
    });

    it('a hard bounce (550 5.1.1) puts the address on the suppression list, origin bounce', async () => {
      const { id } = await sendAndSettle({
        from: FROM,
        to: 'gone@bounce.test',
        subject: 's',
        html: '<p>s</p>',
      });
      const { status, body } = await stack.http(`/suppressions/${encodeURIComponent('gone@bounce.test')}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({ email: 'gone@bounce.test', origin: 'bounce', source_id: id });
    });
  });

  describe('unsubscribe links (RFC 8058)', () => {
    async function topicMailTo(t: string, to: string) {
      const { copies } = await sendAndSettle({
        from: FROM,
        to,
        subject: 'news',
        html: '<p>news</p>',
        topicId: t,
      });
      return copies;
    }
    const linkOf = (m: SinkMessage) => header(m, 'List-Unsubscribe')!.slice(1, -1);

    it('one-click POST unsubscribes from the topic at once; the next topic email skips the contact; repeats are harmless', async () => {
      const t = await topic('opt_in');
      const reader = addr('reader');
      await contact(reader);
      const [first] = await topicMailTo(t, reader);
      const url = linkOf(first!);
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'List-Unsubscribe=One-Click',
        });
        expect(res.status).toBe(200);
      }
      const topics = await stack.resend.contacts.topics.list({ email: reader });
      expect(topics.data?.data).toEqual(
        expect.arrayContaining([expect.objectContaining({ id: t, subscription: 'opt_out' })]),
      );
      expect(await topicMailTo(t, reader)).toEqual([]);
      // other topics and transactional mail still reach them
      const other = await topic('opt_in');
      expect(await topicMailTo(other, reader)).toHaveLength(1);
    });

    it('a non-contact who unsubscribes becomes a contact with that choice', async () => {
      const t = await topic('opt_in');
      const stranger = addr('stranger');
      const [m] = await topicMailTo(t, stranger);
      expect((await fetch(linkOf(m!), { method: 'POST', body: 'List-Unsubscribe=One-Click' })).status).toBe(
        200,
      );
      const got = await stack.resend.contacts.get({ email: stranger });
      expect(got.error).toBeNull();
      expect(await topicMailTo(t, stranger)).toEqual([]);
    });

    it('GET shows the preference page and changes nothing; the form saves; tampered tokens are refused', async () => {
      const t = await topic('opt_in');
      const reader = addr('page');
      await contact(reader);
      const [m] = await topicMailTo(t, reader);
      const url = linkOf(m!);
      const page = await fetch(url);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain(reader);
      expect(html).toContain(`value="${t}" checked`);
      expect(await topicMailTo(t, reader)).toHaveLength(1); // still subscribed after the GET

      const saved = await fetch(`${url}/preferences`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'unsubscribe_all=1',
      });
      expect(saved.status).toBe(200);
      const got = await stack.resend.contacts.get({ email: reader });
      expect(got.data?.unsubscribed).toBe(true);
      expect(await topicMailTo(t, reader)).toEqual([]);

      const [body, sig] = url.split('/unsubscribe/')[1]!.split('.') as [string, string];
      const flipped = `${body.slice(0, -2)}${body.at(-2) === 'A' ? 'B' : 'A'}${body.at(-1)}`;
      const base = url.split('/unsubscribe/')[0];
      for (const bad of [`${flipped}.${sig}`, `${body}.${sig.slice(1)}`, 'nonsense']) {
        const res = await fetch(`${base}/unsubscribe/${bad}`, {
          method: 'POST',
          body: 'List-Unsubscribe=One-Click',
        });
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect((await fetch(`${base}/unsubscribe/${bad}`)).status).toBeGreaterThanOrEqual(400);
      }
    });
  });
}
