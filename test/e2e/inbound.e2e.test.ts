/**
 * Inbound mail on one redis-server (scenarios/inbound.ts): received emails, the no-relay rule,
 * bounces and complaints through the VERP return path, and R22 on the inbound port. Then the
 * return path of a verified sending domain (`bounces+<id>@send.<domain>`, where the domain's
 * published MX sends DSNs): a DSN there bounces the email, and unknown domains stay refused.
 * And a message in windows-1252 reads back with its own characters (0x80-0x9F included).
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileDnsStack, ok } from './helpers.js';
import {
  FIXTURE_ID,
  INBOUND_DOMAIN,
  INBOUND_TEST_ENV,
  crlf,
  fixture,
  inboundScenarios,
  mta,
  sendAndDeliverWith,
} from './scenarios/inbound.js';

const { stack, dns } = fileDnsStack(() => INBOUND_TEST_ENV);

describe('inbound mail (SMTP_INBOUND_PORT)', () => {
  inboundScenarios(() => stack);
});

describe("a sending domain's return path", () => {
  /** An id that is no email: the returned headers then name nothing, only the envelope does. */
  const NO_EMAIL = '0190b7c2-5a3e-7d41-9f2a-000000000000';

  it('a DSN to bounces+<id>@send.<domain> bounces the email and suppresses the address; unknown domains get 550', async () => {
    const domain = (await stack.resend.domains.create({ name: 'returns.e2e.test' })).data!;
    for (const r of domain.records) {
      dns.add({
        name: r.name,
        type: r.type as 'TXT' | 'MX',
        value: r.value,
        ...('priority' in r && r.priority !== undefined ? { priority: r.priority } : {}),
      });
    }
    await stack.resend.domains.verify(domain.id);
    expect((await stack.resend.domains.get(domain.id)).data!.status).toBe('verified');

    const to = `gone.${Date.now()}@example.net`;
    const returns = 'send.returns.e2e.test';
    const id = await sendAndDeliverWith(stack, to, 'Returns <hello@returns.e2e.test>', returns);
    const returnPath = `bounces+${id}@${returns}`;

    const dsn = crlf(
      fixture('postfix-user-unknown.eml')
        .replaceAll(FIXTURE_ID, NO_EMAIL)
        .replaceAll('nobody@example.net', to),
    );
    const info = await mta(stack.smtpPorts.inbound!).sendMail({
      envelope: { from: '', to: [returnPath] },
      raw: dsn,
    });
    expect(info.response).toMatch(/^250 /);
    await waitUntil(async () => (await stack.resend.emails.get(id)).data?.last_event === 'bounced', {
      timeoutMs: 20_000,
      message: 'the email bounced',
    });
    const s = await stack.http(`/suppressions/${encodeURIComponent(to)}`);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ email: to, origin: 'bounce', source_id: id });

    // a domain no team has, even shaped like a return path, is still no relay
    await expect(
      mta(stack.smtpPorts.inbound!).sendMail({
        envelope: { from: '', to: [`bounces+${id}@send.unknown.e2e.test`] },
        raw: dsn,
      }),
    ).rejects.toMatchObject({ responseCode: 550 });
  });
});

describe('inbound mail in windows-1252', () => {
  it('an Outlook-shaped windows-1252 message reads back right through the SDK: subject, text and html', async () => {
    const t = Date.now();
    const to = `support@${INBOUND_DOMAIN}`;
    const boundary = '----=_NextPart_000_0002_01DA6D26.BCF08240';
    // As Outlook writes it (encoded words, a quoted-printable text part), with an 8-bit html part
    // as older clients send it; `\xNN` are the bytes on the wire, 0x80-0x9F among them.
    const raw = Buffer.from(
      [
        'From: =?windows-1252?Q?Ren=E9_=93Ray=94_M=FCller?= <rene@sender.test>',
        `To: ${to}`,
        `Subject: =?windows-1252?Q?Invoice_=96_=8010_=85_Caf=E9=99_${t}?=`,
        `Message-ID: <${t}.cp1252@sender.test>`,
        'MIME-Version: 1.0',
        `Content-Type: multipart/alternative; boundary="${boundary}"`,
        'X-Mailer: Microsoft Outlook 16.0',
        '',
        `--${boundary}`,
        'Content-Type: text/plain; charset="windows-1252"',
        'Content-Transfer-Encoding: quoted-printable',
        '',
        'Hi =93team=94 =96 the total is =8012,50 =85 that=92s all=99.',
        `--${boundary}`,
        'Content-Type: text/html; charset="windows-1252"',
        'Content-Transfer-Encoding: 8bit',
        '',
        '<p>Gr\xfc\xdfe \x96 \x84Angebot\x93 \x80 5</p>',
        `--${boundary}--`,
        '',
      ].join('\r\n'),
      'latin1',
    );
    const info = await mta(stack.smtpPorts.inbound!).sendMail({
      envelope: { from: 'rene@sender.test', to: [to] },
      raw,
    });
    expect(info.response).toMatch(/^250 /);

    const subject = `Invoice – €10 … Café™ ${t}`;
    const listed = await waitUntil(
      async () =>
        ok(await stack.resend.emails.receiving.list()).data.find(
          (e) => e.message_id === `<${t}.cp1252@sender.test>`,
        ),
      { timeoutMs: 20_000, message: 'the received email in receiving.list' },
    );
    expect(listed.subject).toBe(subject);
    const email = ok(await stack.resend.emails.receiving.get(listed.id));
    expect(email).toMatchObject({
      from: 'rene@sender.test',
      subject,
      text: 'Hi “team” – the total is €12,50 … that’s all™.\n',
      html: '<p>Grüße – „Angebot“ € 5</p>\n',
    });
  });
});
