/**
 * Security hardening, end to end through the official SDK and a nodemailer SMTP client against
 * the whole stack (private networks NOT allowed, as in production):
 *
 * - SSRF: webhook endpoints and attachment `path` URLs on special-purpose addresses that are
 *   not private networks — the documentation TEST-NETs, the 6to4 relay anycast block — are
 *   refused with a 422 naming the field; nothing is fetched, nothing is sent.
 * - A domain-restricted sending key may name only its own domain in the identity headers
 *   (Sender, Resent-From, Resent-Sender): 403 over the API, 550 over SMTP, and the sink gets
 *   nothing. Return-Path is Petrel's: refused over the API (422), dropped from SMTP submissions.
 * - At most MAX_RECIPIENTS_PER_EMAIL (1,000) recipients per email, to + cc + bcc: 422 naming
 *   the field, and the batch item.
 */
import { createTransport } from 'nodemailer';
import { Resend } from 'resend';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack, fileStack } from './helpers.js';
import { SMTP_SUBMISSION_ENV, idOf, submissionTransport } from './scenarios/smtp-submission.js';

const stack = fileStack({ env: { ...SMTP_SUBMISSION_ENV, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' } });

/** The sink's messages whose subject is `subject` (each test sends under subjects of its own). */
const delivered = (subject: string) => stack.sink.messages.filter((m) => m.parsed.subject === subject);

describe('SSRF: special-purpose addresses that are no private network', () => {
  const SPECIAL = [
    ['192.0.2.1', '192.0.2.0/24, Documentation (TEST-NET-1), RFC 5737'],
    ['198.51.100.1', '198.51.100.0/24, Documentation (TEST-NET-2), RFC 5737'],
    ['203.0.113.1', '203.0.113.0/24, Documentation (TEST-NET-3), RFC 5737'],
    ['192.88.99.1', '192.88.99.0/24, Deprecated (6to4 Relay Anycast), RFC 7526'],
  ] as const;

  it.each(SPECIAL)(
    'refuses a webhook endpoint on %s with 422 naming endpoint and the block',
    async (ip, block) => {
      const r = await stack.resend.webhooks.create({ endpoint: `http://${ip}/hook`, events: ['email.sent'] });
      expect(r.error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message: `endpoint: ${ip} is a private or reserved network address (${block}); webhooks are delivered to public hosts only`,
      });
    },
  );

  it('refuses an attachment path on 192.0.2.1 (and in IPv4-mapped form) and sends nothing', async () => {
    const subject = 'ssrf attachment';
    for (const host of ['192.0.2.1', '[::ffff:192.0.2.1]']) {
      const r = await stack.resend.emails.send({
        from: 'Acme <hello@acme.test>',
        to: 'you@ssrf.test',
        subject,
        text: 'see the attachment',
        attachments: [{ path: `http://${host}/report.pdf`, filename: 'report.pdf' }],
      });
      expect(r.error, host).toMatchObject({
        statusCode: 422,
        name: 'invalid_attachment',
        message: expect.stringMatching(
          /^attachments\[0\]\.path: \S+ is a private or reserved network address \(192\.0\.2\.0\/24, Documentation \(TEST-NET-1\), RFC 5737\); only public hosts can be fetched$/,
        ),
      });
    }
    await stack.drained();
    expect(delivered(subject)).toEqual([]);
  });
});

describe('identity headers of a domain-restricted key', () => {
  let restricted: Resend;
  let token: string;
  beforeAll(async () => {
    const mine = await stack.resend.domains.create({ name: 'mine.hardening.test' });
    expect(mine.error).toBeNull();
    const key = await stack.resend.apiKeys.create({
      name: 'restricted',
      permission: 'sending_access',
      domain_id: mine.data!.id,
    });
    expect(key.error).toBeNull();
    token = key.data!.token;
    restricted = new Resend(token, { baseUrl: stack.baseUrl });
  });

  const FOREIGN: [header: string, value: string, field: string][] = [
    ['Sender', 'Ops <ops@evil.test>', 'headers.Sender'],
    ['Resent-From', 'boss@mine.hardening.test, ceo@evil.test', 'headers["Resent-From"]'],
    ['Resent-Sender', 'x@evil.test', 'headers["Resent-Sender"]'],
  ];

  it.each(FOREIGN)(
    'API: %s on another domain → 403 naming the header; nothing sent',
    async (header, value, field) => {
      const subject = `api identity ${header}`;
      const r = await restricted.emails.send({
        from: 'Acme <hello@mine.hardening.test>',
        to: 'you@identity.test',
        subject,
        text: 'x',
        headers: { [header]: value },
      });
      expect(r.error).toMatchObject({
        statusCode: 403,
        name: 'validation_error',
        message: `${field}: this API key may only send from the domain it is restricted to, not evil.test`,
      });
      await stack.drained();
      expect(delivered(subject)).toEqual([]);
    },
  );

  it('API: the same headers on the key domain are sent as written', async () => {
    const subject = 'api identity on the key domain';
    const r = await restricted.emails.send({
      from: 'Acme <hello@mine.hardening.test>',
      to: 'you@identity.test',
      subject,
      text: 'x',
      headers: { Sender: 'Ops <ops@mine.hardening.test>', 'Resent-From': 'boss@mine.hardening.test' },
    });
    expect(r.error).toBeNull();
    const [message] = await waitForSubject(subject);
    expect(message!.raw.toString()).toContain('Sender: Ops <ops@mine.hardening.test>');
  });

  it('API: Return-Path is refused for any key (422): the return path is Petrel’s', async () => {
    const subject = 'api return-path';
    for (const client of [restricted, stack.resend]) {
      const r = await client.emails.send({
        from: 'Acme <hello@mine.hardening.test>',
        to: 'you@identity.test',
        subject,
        text: 'x',
        headers: { 'Return-Path': '<bounces@evil.test>' },
      });
      expect(r.error).toMatchObject({
        statusCode: 422,
        name: 'validation_error',
        message:
          'headers["Return-Path"]: is set by Petrel from the email fields and cannot be a custom header',
      });
    }
    await stack.drained();
    expect(delivered(subject)).toEqual([]);
  });

  it.each(FOREIGN)(
    'SMTP: %s on another domain → 550 at the end of DATA; nothing sent',
    async (header, value) => {
      const subject = `smtp identity ${header}`;
      const transport = submissionTransport(stack.smtpPorts.submission!, token);
      try {
        await expect(
          transport.sendMail({
            from: 'Acme <hello@mine.hardening.test>',
            to: 'you@identity.test',
            subject,
            text: 'x',
            headers: { [header]: value },
          }),
        ).rejects.toMatchObject({
          responseCode: 550,
          response: expect.stringContaining(
            'this API key may only send from the domain it is restricted to, not evil.test',
          ),
        });
      } finally {
        transport.close();
      }
      await stack.drained();
      expect(delivered(subject)).toEqual([]);
    },
  );

  it('SMTP: a Return-Path header is dropped, never relayed; the envelope sender stays Petrel’s', async () => {
    const subject = 'smtp return-path';
    const mail = {
      from: 'Acme <hello@mine.hardening.test>',
      to: 'you@identity.test',
      subject,
      text: 'x',
      headers: { 'Return-Path': '<bounces@evil.test>' },
    };
    // the client does write the header into the DATA it submits
    const built = await createTransport({ streamTransport: true, buffer: true }).sendMail(mail);
    expect(String(built.message)).toContain('Return-Path: <bounces@evil.test>');
    const transport = submissionTransport(stack.smtpPorts.submission!, token);
    try {
      const info = await transport.sendMail(mail);
      const id = idOf(info.response);
      const [message] = await waitForSubject(subject);
      expect(message!.raw.toString()).not.toContain('evil.test');
      expect(message!.envelope.from).not.toContain('evil.test');
      expect((await stack.resend.emails.get(id)).data?.id).toBe(id);
    } finally {
      transport.close();
    }
  });
});

describe('recipients per email (MAX_RECIPIENTS_PER_EMAIL, default 1,000)', () => {
  const list = (n: number, who: string) => Array.from({ length: n }, (_, i) => `${who}${i}@cap.test`);

  it('refuses one email with 20,000 cc and 20,000 bcc: 422 naming the field; nothing sent', async () => {
    const subject = 'cap 40k';
    const r = await stack.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: 'you@cap.test',
      cc: list(20_000, 'cc'),
      bcc: list(20_000, 'bcc'),
      subject,
      text: 'x',
    });
    expect(r.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: 'cc: at most 1000 recipients per email in to, cc and bcc together (this email has 40001)',
    });
    await stack.drained();
    expect(delivered(subject)).toEqual([]);
  });

  it('accepts exactly 1,000 (50 to, 475 cc, 475 bcc) and refuses 1,001 naming bcc', async () => {
    const base = { from: 'Acme <hello@acme.test>', to: list(50, 'to'), cc: list(475, 'cc'), text: 'x' };
    // scheduled, then cancelled: the acceptance is the point, not 1,000 deliveries
    const ok = await stack.resend.emails.send({
      ...base,
      bcc: list(475, 'bcc'),
      subject: 'cap 1000',
      scheduledAt: 'in 1 hour',
    });
    expect(ok.error).toBeNull();
    expect((await stack.resend.emails.cancel(ok.data!.id)).error).toBeNull();
    const over = await stack.resend.emails.send({ ...base, bcc: list(476, 'bcc'), subject: 'cap 1001' });
    expect(over.error).toMatchObject({
      statusCode: 422,
      message: 'bcc: at most 1000 recipients per email in to, cc and bcc together (this email has 1001)',
    });
    expect(
      (await stack.resend.emails.send({ ...base, to: list(51, 'to'), subject: 'to 51' })).error,
    ).toMatchObject({ statusCode: 422, message: 'to: at most 50 recipients' });
  });

  it('batch: names the item index, strict (whole batch refused) and permissive (that item only)', async () => {
    const subject = 'cap batch';
    const small = { from: 'Acme <hello@acme.test>', to: 'one@cap.test', subject, text: 'x' };
    const big = { ...small, cc: list(600, 'cc'), bcc: list(600, 'bcc') };
    const strict = await stack.resend.batch.send([small, big]);
    expect(strict.error).toMatchObject({
      statusCode: 422,
      message:
        'emails[1].bcc: at most 1000 recipients per email in to, cc and bcc together (this email has 1201)',
    });
    await stack.drained();
    expect(delivered(subject)).toEqual([]);

    const permissive = await stack.resend.batch.send([big, small], { batchValidation: 'permissive' });
    expect(permissive.error).toBeNull();
    expect(permissive.data!.data).toHaveLength(1);
    expect(permissive.data!.errors).toEqual([
      {
        index: 0,
        message:
          'emails[0].bcc: at most 1000 recipients per email in to, cc and bcc together (this email has 1201)',
      },
    ]);
    const [only] = await waitForSubject(subject);
    expect(only!.envelope.to).toEqual(['one@cap.test']);
  });
});

/** The sink's messages with this subject, once there is at least one. */
async function waitForSubject(subject: string) {
  for (;;) {
    const seen = stack.sink.messages.length;
    const found = delivered(subject);
    if (found.length > 0) return found;
    await stack.sink.waitFor(seen + 1, 15_000);
  }
}

describe('MAX_RECIPIENTS_PER_EMAIL=100: one variable caps the API and SMTP RCPT TO', () => {
  let capped: Stack;
  beforeAll(async () => {
    capped = await startStack({ env: { ...SMTP_SUBMISSION_ENV, MAX_RECIPIENTS_PER_EMAIL: '100' } });
  });
  afterAll(async () => {
    await capped?.stop();
  });
  const list = (n: number, who: string) => Array.from({ length: n }, (_, i) => `${who}${i}@cap100.test`);

  it('API: 101 recipients → 422 naming cc', async () => {
    const r = await capped.resend.emails.send({
      from: 'Acme <hello@acme.test>',
      to: list(50, 'to'),
      cc: list(51, 'cc'),
      subject: 'cap 101',
      text: 'x',
    });
    expect(r.error).toMatchObject({
      statusCode: 422,
      message: 'cc: at most 100 recipients per email in to, cc and bcc together (this email has 101)',
    });
  });

  it('SMTP: the 101st RCPT TO is refused with 452; the email goes to the first 100', async () => {
    const transport = submissionTransport(capped.smtpPorts.submission!, capped.key);
    try {
      const recipients = list(101, 'rcpt');
      const info = await transport.sendMail({
        from: 'Acme <hello@acme.test>',
        to: recipients[0],
        bcc: recipients.slice(1),
        subject: 'smtp cap 100',
        text: 'x',
      });
      expect(info.rejected).toEqual([recipients[100]]);
      expect(info.rejectedErrors?.[0]).toMatchObject({ responseCode: 452 });
      const [message] = await capped.sink.waitFor(1, 15_000);
      expect(message!.envelope.to).toHaveLength(100);
      expect(message!.envelope.to).not.toContain(recipients[100]);
    } finally {
      transport.close();
    }
  });
});
