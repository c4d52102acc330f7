/**
 * Inbound mail end to end, with nodemailer as the sending MTA against the running service's
 * inbound server and the official `resend` SDK as the API client:
 *
 * - a message for a receiving domain becomes `email.received` on the team's events stream,
 *   delivered signed by the webhook dispatcher (verified with `resend.webhooks.verify`), and is
 *   readable with `resend.emails.receiving.get` / `list`; its raw download works without an
 *   API key; its attachments list, get and download; `html_format=cid` keeps the references;
 * - mail for another domain is refused at RCPT (550): no open relay;
 * - a DSN and an ARF report about an email sent through the SDK (its VERP return path seen on
 *   the sink's envelope) produce email.bounced / email.complained on it and suppress the
 *   address, so the next send to it is suppressed and reaches no one;
 * - a message with a bare LF (`<LF>.<CR><LF>` smuggling) is refused whole: no second message.
 *
 * Shared by the single-node suite and the Redis Cluster suite; the stack runs with
 * {@link INBOUND_TEST_ENV}.
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeEach, expect, it } from 'vitest';
import nodemailer from 'nodemailer';
import { startHttpReceiver, waitUntil, type HttpReceiver } from '@petrel/testing';
import type { EmailEvent, TeamEvent } from '@petrel/contracts';
import { ok, type Stack } from '../helpers.js';

export const INBOUND_DOMAIN = 'in.e2e.test';
export const BOUNCE_DOMAIN = 'bounce.e2e.test';
export const INBOUND_TEST_ENV: Record<string, string> = {
  INBOUND_DOMAINS: INBOUND_DOMAIN,
  BOUNCE_DOMAIN,
};

/** The email id the report fixtures (packages/core/src/inbound/fixtures) are about. */
export const FIXTURE_ID = '0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';
export const fixture = (name: string): string =>
  readFileSync(new URL(`../../../packages/core/src/inbound/fixtures/${name}`, import.meta.url), 'utf8');
export const crlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');

/**
 * Sends through the SDK and returns its id once the sink has it and its sending is over, checking
 * the envelope sender the sink saw: the VERP return path at `returnDomain`, which names the email.
 */
export async function sendAndDeliverWith(
  stack: Stack,
  to: string,
  from = 'Acme <hello@acme.test>',
  returnDomain = BOUNCE_DOMAIN,
): Promise<string> {
  const sent = await stack.resend.emails.send({ from, to, subject: 'Hi', text: 'hi' });
  expect(sent.error).toBeNull();
  const id = sent.data!.id;
  const msg = await waitUntil(() => stack.sink.messages.find((m) => m.envelope.to.includes(to)), {
    timeoutMs: 20_000,
    message: `the email to ${to} at the sink`,
  });
  expect(msg.envelope.from).toBe(`bounces+${id}@${returnDomain}`);
  await stack.settled([id]);
  return id;
}

/** nodemailer as a sending MTA: no AUTH, STARTTLS when offered (the certificate is self-signed). */
export function mta(port: number) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    tls: { rejectUnauthorized: false },
  });
}

export function inboundScenarios(current: () => Stack): void {
  let stack: Stack;
  let n = 0;
  const tag = () => `${++n}.${Date.now()}`;
  const receivers: HttpReceiver[] = [];
  beforeEach(() => {
    stack = current();
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
  });
  const port = () => stack.smtpPorts.inbound!;

  async function eventOf(type: string, match: (e: EmailEvent | TeamEvent) => boolean) {
    return waitUntil(async () => (await stack.teamEvents(type)).find(match), {
      timeoutMs: 20_000,
      message: `${type} on the team's events stream`,
    });
  }

  it('mail for a receiving domain: email.received (signed delivery), receiving.get/list, raw and attachments downloadable without a key', async () => {
    const rx = await startHttpReceiver();
    receivers.push(rx);
    const hook = await stack.resend.webhooks.create({
      endpoint: `${rx.url}/in`,
      events: ['email.received'] as never,
    });
    expect(hook.error).toBeNull();
    const t = tag();
    const subject = `Order ${t}`;
    const info = await mta(port()).sendMail({
      from: 'Jane Customer <jane@sender.test>',
      to: `support@${INBOUND_DOMAIN}`,
      cc: 'team@sender.test',
      subject,
      text: 'Hello, see the photo.',
      html: '<p>Hello <img src="cid:photo@sender.test"></p>',
      attachments: [
        { filename: 'dot.png', content: Buffer.from('iVBORw0KGgo=', 'base64'), cid: 'photo@sender.test' },
        { filename: 'order.csv', content: 'id,qty\n42,1\n', contentType: 'text/csv' },
      ],
      envelope: { from: 'bounce@sender.test', to: [`support@${INBOUND_DOMAIN}`] },
    });
    expect(info.accepted).toEqual([`support@${INBOUND_DOMAIN}`]);
    expect(info.response).toMatch(/^250 /);

    const event = (await eventOf('email.received', (e) => e.data.subject === subject)) as EmailEvent;
    const id = event.data.email_id as string;
    expect(event.data).toMatchObject({
      from: 'jane@sender.test',
      to: [`support@${INBOUND_DOMAIN}`],
      cc: ['team@sender.test'],
      bcc: [],
      received_for: [`support@${INBOUND_DOMAIN}`],
      message_id: info.messageId,
      attachments: [
        expect.objectContaining({ filename: 'dot.png', content_id: 'photo@sender.test' }),
        expect.objectContaining({
          filename: 'order.csv',
          content_type: 'text/csv',
          content_disposition: 'attachment',
        }),
      ],
    });

    // the webhook dispatcher delivers it signed
    const delivery = await waitUntil(() => rx.requests.find((r) => r.body.includes(id)), {
      timeoutMs: 20_000,
      message: 'the email.received delivery',
    });
    const verified = stack.resend.webhooks.verify({
      payload: delivery.body,
      headers: {
        id: String(delivery.headers['svix-id']),
        timestamp: String(delivery.headers['svix-timestamp']),
        signature: String(delivery.headers['svix-signature']),
      },
      webhookSecret: hook.data!.signing_secret,
    }) as unknown as { type: string; data: Record<string, unknown> };
    expect(verified.type).toBe('email.received');
    expect(verified.data.email_id).toBe(id);
    await stack.resend.webhooks.remove(hook.data!.id);

    const email = ok(await stack.resend.emails.receiving.get(id));
    expect(email).toMatchObject({
      object: 'email',
      id,
      from: 'jane@sender.test',
      to: [`support@${INBOUND_DOMAIN}`],
      subject,
      message_id: info.messageId,
      text: expect.stringContaining('Hello, see the photo.'),
    });
    expect(email.headers!.from).toBe('Jane Customer <jane@sender.test>');
    expect(email.headers!.received).toMatch(/with ESMTPS/); // nodemailer took STARTTLS
    expect(email.html).toContain('src="data:image/png;base64,'); // html_format=data_uri, the default
    const cid = await stack.resend.emails.receiving.get(id, { html_format: 'cid' });
    expect(cid.data!.html).toContain('cid:photo@sender.test');

    const listed = await stack.resend.emails.receiving.list();
    expect(listed.error).toBeNull();
    expect(listed.data!.data.find((e) => e.id === id)).toMatchObject({
      subject,
      received_for: [`support@${INBOUND_DOMAIN}`],
    });

    // the raw message: no API key needed, our Received field on top, then what was sent
    const raw = await fetch(email.raw!.download_url);
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe('message/rfc822');
    const text = await raw.text();
    expect(text).toMatch(/^Received: from /);
    expect(text).toContain(`Subject: ${subject}`);
    expect(Date.parse(email.raw!.expires_at)).toBeGreaterThan(Date.now());
    // a tampered link opens nothing
    expect((await fetch(`${email.raw!.download_url}x`)).status).toBe(404);

    const atts = await stack.resend.emails.receiving.attachments.list({ emailId: id });
    expect(atts.error).toBeNull();
    expect(atts.data!.data.map((a) => a.filename)).toEqual(['dot.png', 'order.csv']);
    const csvMeta = atts.data!.data[1]!;
    const one = await stack.resend.emails.receiving.attachments.get({ emailId: id, id: csvMeta.id });
    expect(one.data).toMatchObject({
      object: 'attachment',
      id: csvMeta.id,
      size: 12,
      content_type: 'text/csv',
    });
    const csv = await fetch(one.data!.download_url);
    expect(await csv.text()).toBe('id,qty\n42,1\n');
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="order.csv"/);
    expect(csv.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('mail for another domain is refused at RCPT (550): no open relay', async () => {
    const t = tag();
    await expect(
      mta(port()).sendMail({
        from: 'a@sender.test',
        to: `x.${t}@example.com`,
        subject: 'relay?',
        text: 'no',
      }),
    ).rejects.toMatchObject({ responseCode: 550 });
    // a message for both: only the receiving domain's recipient is taken
    const both = await mta(port()).sendMail({
      from: 'a@sender.test',
      to: [`ok.${t}@${INBOUND_DOMAIN}`, `x.${t}@sub.${INBOUND_DOMAIN}`],
      subject: `half ${t}`,
      text: 'x',
    });
    expect(both.accepted).toEqual([`ok.${t}@${INBOUND_DOMAIN}`]);
    expect(both.rejected).toEqual([`x.${t}@sub.${INBOUND_DOMAIN}`]);
    const event = await eventOf('email.received', (e) => e.data.subject === `half ${t}`);
    expect(event.data.received_for).toEqual([`ok.${t}@${INBOUND_DOMAIN}`]);
  });

  const sendAndDeliver = (to: string) => sendAndDeliverWith(stack, to);

  /** The next email to `to` is suppressed: nothing reaches the sink. */
  async function expectSuppressedNext(to: string): Promise<void> {
    const before = stack.sink.messages.filter((m) => m.envelope.to.includes(to)).length;
    const next = await stack.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to,
      subject: 'Again',
      text: 'x',
    });
    expect(next.error).toBeNull();
    await stack.settled([next.data!.id]);
    // the recipient is listed as suppressed (the email itself ends failed: nobody to send to)
    const { body } = await stack.http(`/emails/${next.data!.id}`);
    expect(body.recipients).toEqual([expect.objectContaining({ email: to, status: 'suppressed' })]);
    expect(stack.sink.messages.filter((m) => m.envelope.to.includes(to))).toHaveLength(before);
  }

  it('a DSN to the VERP return path: email.bounced on the sent email, the address suppressed, the next send suppressed', async () => {
    const to = `gone.${tag()}@example.net`;
    const id = await sendAndDeliver(to);
    const dsn = crlf(
      fixture('postfix-user-unknown.eml').replaceAll(FIXTURE_ID, id).replaceAll('nobody@example.net', to),
    );
    const info = await mta(port()).sendMail({
      envelope: { from: '', to: [`bounces+${id}@${BOUNCE_DOMAIN}`] },
      raw: dsn,
    });
    expect(info.response).toMatch(/^250 /);
    const bounced = await eventOf('email.bounced', (e) => e.data.email_id === id);
    expect(bounced.data).toMatchObject({
      to: [to],
      bounce: {
        type: 'Permanent',
        subType: 'NoEmail',
        diagnosticCode: [expect.stringContaining('550 5.1.1')],
      },
    });
    expect((await stack.resend.emails.get(id)).data!.last_event).toBe('bounced');
    const s = await stack.http(`/suppressions/${encodeURIComponent(to)}`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ email: to, origin: 'bounce', source_id: id });
    await expectSuppressedNext(to);
  });

  it('an ARF report from a feedback loop: email.complained, a complaint suppression, the next send suppressed', async () => {
    const to = `reader.${tag()}@yahoo.test`;
    const id = await sendAndDeliver(to);
    const arf = crlf(
      fixture('yahoo-arf.eml').replaceAll(FIXTURE_ID, id).replaceAll('shopper1982@yahoo.com', to),
    );
    await mta(port()).sendMail({
      envelope: { from: 'feedbackloop@yahoo.test', to: [`fbl@${BOUNCE_DOMAIN}`] },
      raw: arf,
    });
    const complained = await eventOf('email.complained', (e) => e.data.email_id === id);
    expect(complained.data).toMatchObject({ to: [to], complaint: { feedbackType: 'abuse' } });
    expect((await stack.resend.emails.get(id)).data!.last_event).toBe('complained');
    const s = await stack.http(`/suppressions/${encodeURIComponent(to)}`);
    expect(s.body).toMatchObject({ email: to, origin: 'complaint', source_id: id });
    await expectSuppressedNext(to);
  });

  it('R22 on the inbound port: <LF>.<CR><LF> inside DATA is refused whole, no second message', async () => {
    const t = tag();
    const s = await smtpSession(port());
    try {
      expect(await s.command('EHLO smuggler.test')).toMatch(/STARTTLS/);
      expect(await s.command('MAIL FROM:<a@sender.test>')).toMatch(/^250/);
      expect(await s.command(`RCPT TO:<first.${t}@${INBOUND_DOMAIN}>`)).toMatch(/^250/);
      expect(await s.command('DATA')).toMatch(/^354/);
      const reply = await s.command(
        `Subject: outer ${t}\r\n\r\nbody\n.\r\nMAIL FROM:<b@sender.test>\r\nRCPT TO:<second.${t}@${INBOUND_DOMAIN}>\r\nDATA\r\nSubject: smuggled ${t}\r\n\r\nx\r\n.`,
      );
      expect(reply).toMatch(/^554 /);
    } finally {
      s.close();
    }
    // a later message on a fresh session is taken: the refusal was of that message only
    await mta(port()).sendMail({
      from: 'a@sender.test',
      to: `after.${t}@${INBOUND_DOMAIN}`,
      subject: `after ${t}`,
      text: 'x',
    });
    await eventOf('email.received', (e) => e.data.subject === `after ${t}`);
    const received = await stack.teamEvents('email.received');
    expect(received.filter((e) => String(e.data.subject).includes(t)).map((e) => e.data.subject)).toEqual([
      `after ${t}`,
    ]);
  });
}

/** A line-level SMTP client: each command gets the server's whole (multi-line) reply. */
async function smtpSession(port: number): Promise<{ command(line: string): Promise<string>; close(): void }> {
  const socket: Socket = connect(port, '127.0.0.1');
  let buffer = '';
  let waiting: ((reply: string) => void) | undefined;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    const m = /(?:^|\r\n)(\d{3}) [^\r\n]*\r\n$/.exec(buffer);
    if (m && waiting) {
      const reply = buffer;
      buffer = '';
      const w = waiting;
      waiting = undefined;
      w(reply);
    }
  });
  const next = () => new Promise<string>((resolve) => (waiting = resolve));
  await next(); // greeting
  return {
    command(line: string) {
      const reply = next();
      socket.write(`${line}\r\n`);
      return reply;
    },
    close: () => socket.destroy(),
  };
}
