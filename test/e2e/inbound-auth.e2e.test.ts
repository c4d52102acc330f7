/**
 * Authenticating what arrives (INBOUND_AUTH=on): nodemailer as the sending MTA over real SMTP to
 * the inbound server, mailauth's signer with keys published in a local DNS server, and the
 * official SDK reading the results.
 *
 * Zones (all in the local DNS server):
 * - `genuine.test`: SPF allows 127.0.0.1, a DKIM key at `sel._domainkey`, DMARC `p=reject`, a
 *   BIMI record; its MTA `mx.genuine.test` has SPF for 127.0.0.1 too (a DSN's null sender is
 *   checked against the HELO name, RFC 7208 section 2.4);
 * - `lenient.test`: SPF `-all`, DMARC `p=none` (failures are accepted, and recorded);
 * - `forger.test`: nothing published.
 */
import { generateKeyPairSync } from 'node:crypto';
import { dkimSign } from 'mailauth';
import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import type { EmailEvent, InboundAuthentication } from '@petrel/contracts';
import { waitUntil } from '@petrel/testing';
import { fileDnsStack } from './helpers.js';
import {
  BOUNCE_DOMAIN,
  crlf,
  fixture,
  FIXTURE_ID,
  INBOUND_DOMAIN,
  INBOUND_TEST_ENV,
  sendAndDeliverWith,
} from './scenarios/inbound.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PRIVATE_PEM = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const PUBLIC_B64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');

/** The inbound server's name: the authserv-id of its Authentication-Results. */
const AUTHSERV = 'mx.petrel.test';

const { stack } = fileDnsStack((dns) => {
  const txt = (name: string, value: string) => dns.add({ name, type: 'TXT', value });
  txt('genuine.test', 'v=spf1 ip4:127.0.0.1 -all');
  txt('mx.genuine.test', 'v=spf1 ip4:127.0.0.1 -all');
  txt('sel._domainkey.genuine.test', `v=DKIM1; k=rsa; p=${PUBLIC_B64}`);
  txt('_dmarc.genuine.test', 'v=DMARC1; p=reject');
  txt('default._bimi.genuine.test', 'v=BIMI1; l=https://genuine.test/logo.svg');
  txt('lenient.test', 'v=spf1 -all');
  txt('mx.lenient.test', 'v=spf1 -all');
  txt('_dmarc.lenient.test', 'v=DMARC1; p=none');
  return { ...INBOUND_TEST_ENV, INBOUND_AUTH: 'on', SMTP_HOSTNAME: AUTHSERV };
});

let n = 0;
const tag = () => `${++n}.${Date.now()}`;

/** `raw` with a DKIM-Signature of genuine.test prepended. */
async function signed(raw: string): Promise<string> {
  const key = { signingDomain: 'genuine.test', selector: 'sel', privateKey: PRIVATE_PEM };
  // mailauth signs with the entries of signatureData (its typings also ask for one key at the top)
  const { signatures, errors } = await dkimSign(raw, { ...key, signatureData: [key] });
  expect(errors).toEqual([]);
  expect(signatures).toMatch(/^DKIM-Signature: /);
  return signatures + raw;
}

/** Hands `raw` to the inbound server as an MTA named `helo` would; resolves with the reply or the refusal. */
async function deliver(
  raw: string,
  envelope: { from: string; to: string[] },
  helo: string,
): Promise<{ response: string; code?: number }> {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: stack.smtpPorts.inbound!,
    secure: false,
    name: helo,
    tls: { rejectUnauthorized: false },
  });
  try {
    const info = await transport.sendMail({ envelope, raw });
    return { response: info.response };
  } catch (err) {
    const e = err as { response?: string; responseCode?: number };
    return {
      response: e.response ?? String(err),
      ...(e.responseCode !== undefined && { code: e.responseCode }),
    };
  } finally {
    transport.close();
  }
}

const message = (from: string, subject: string, to = `support@${INBOUND_DOMAIN}`) =>
  crlf(
    `From: ${from}\nTo: ${to}\nSubject: ${subject}\nDate: ${new Date().toUTCString()}\n` +
      `Message-ID: <${tag()}@${from.split('@')[1]}>\nMIME-Version: 1.0\nContent-Type: text/plain\n\nHello there.\n`,
  );

async function receivedId(subject: string): Promise<string> {
  const event = await waitUntil(
    async () => (await stack.teamEvents('email.received')).find((e) => e.data.subject === subject),
    { timeoutMs: 20_000, message: `email.received for ${subject}` },
  );
  return (event as EmailEvent).data.email_id as string;
}

describe('received mail carries its authentication results', () => {
  it('genuine signed mail: spf, dkim, dmarc and bimi pass in the SDK and in Authentication-Results at the top', async () => {
    const subject = `genuine ${tag()}`;
    const raw = await signed(message('Alice <alice@genuine.test>', subject));
    const reply = await deliver(
      raw,
      { from: 'alice@genuine.test', to: [`support@${INBOUND_DOMAIN}`] },
      'mx.genuine.test',
    );
    expect(reply.response).toMatch(/^250 /);

    const got = await stack.resend.emails.receiving.get(await receivedId(subject));
    expect(got.error).toBeNull();
    const auth = (got.data as unknown as { authentication: InboundAuthentication }).authentication;
    expect(auth).toEqual({
      spf: { result: 'pass', domain: 'genuine.test' },
      dkim: [{ result: 'pass', domain: 'genuine.test', selector: 'sel', aligned: true }],
      dmarc: {
        result: 'pass',
        domain: 'genuine.test',
        policy: 'reject',
        pct: 100,
        alignment: { spf: 'genuine.test', dkim: 'genuine.test' },
      },
      arc: { result: 'none' },
      bimi: { result: 'pass', location: 'https://genuine.test/logo.svg' },
    });
    const ar = got.data!.headers!['authentication-results']!;
    for (const part of ['dkim=pass', 'spf=pass', 'dmarc=pass', 'bimi=pass', 'header.d=genuine.test'])
      expect(ar).toContain(part);

    // the stored message starts with the field (RFC 8601 section 5), then our Received
    const rawUrl = (got.data as unknown as { raw: { download_url: string } }).raw.download_url;
    const stored = await (await fetch(rawUrl)).text();
    expect(stored).toMatch(/^Authentication-Results: [^;\r\n]+;\r\n dkim=pass/);
    expect(stored.indexOf('\r\nReceived: ')).toBeLessThan(stored.indexOf('DKIM-Signature:'));
  });

  it('a tampered signature and a forbidden IP under p=none: accepted, dkim, spf and dmarc fail; a forged result under our name is removed', async () => {
    const subject = `lenient ${tag()}`;
    const original = await signed(message('Bob <bob@genuine.test>', subject));
    // re-addressed as lenient.test after signing: the signature no longer verifies, nor aligns
    const forgedResult = `Authentication-Results: ${AUTHSERV}; dkim=pass; spf=pass; dmarc=pass\r\n`;
    const raw =
      forgedResult + original.replace('From: Bob <bob@genuine.test>', 'From: Bob <bob@lenient.test>');
    expect(raw).not.toContain('From: Bob <bob@genuine.test>');
    const reply = await deliver(
      raw,
      { from: 'bob@lenient.test', to: [`support@${INBOUND_DOMAIN}`] },
      'mx.lenient.test',
    );
    expect(reply.response).toMatch(/^250 /);

    const got = await stack.resend.emails.receiving.get(await receivedId(subject));
    const auth = (got.data as unknown as { authentication: InboundAuthentication }).authentication;
    expect(auth).toMatchObject({
      spf: { result: 'fail', domain: 'lenient.test' },
      dkim: [{ result: 'fail', domain: 'genuine.test', aligned: false }],
      dmarc: { result: 'fail', domain: 'lenient.test', policy: 'none', alignment: { spf: null, dkim: null } },
      bimi: { result: 'skipped' },
    });
    const ar = got.data!.headers!['authentication-results']!;
    expect(ar).toContain('dmarc=fail');
    expect(ar).not.toContain('dmarc=pass');
    const rawUrl = (got.data as unknown as { raw: { download_url: string } }).raw.download_url;
    const stored = await (await fetch(rawUrl)).text();
    expect(stored.match(/^Authentication-Results:/gim)).toHaveLength(1);
    expect(stored).toMatch(new RegExp(`^Authentication-Results: ${AUTHSERV.replaceAll('.', '\\.')};`));
  });

  it('DMARC p=reject failure: 550 5.7.1 at the end of DATA and nothing stored', async () => {
    const subject = `spoof ${tag()}`;
    // From genuine.test, but unsigned and sent with another domain's envelope: nothing aligns
    const reply = await deliver(
      message('CEO <ceo@genuine.test>', subject),
      { from: 'someone@forger.test', to: [`support@${INBOUND_DOMAIN}`] },
      'mx.forger.test',
    );
    expect(reply.code).toBe(550);
    expect(reply.response).toMatch(/^550 5\.7\.1 Rejected by the DMARC policy of genuine\.test/);

    // a message sent after it is stored; the refused one never is
    const after = `after ${tag()}`;
    const ok = await deliver(
      await signed(message('Alice <alice@genuine.test>', after)),
      { from: 'alice@genuine.test', to: [`support@${INBOUND_DOMAIN}`] },
      'mx.genuine.test',
    );
    expect(ok.response).toMatch(/^250 /);
    await receivedId(after);
    const subjects = (await stack.teamEvents('email.received')).map((e) => e.data.subject);
    expect(subjects).toContain(after);
    expect(subjects).not.toContain(subject);
    const list = await stack.resend.emails.receiving.list();
    expect(list.data!.data.map((e) => e.subject)).not.toContain(subject);
  });
});

describe('bounces and complaints act only when authenticated', () => {
  const sendAndDeliver = (to: string) => sendAndDeliverWith(stack, to);

  /** The postfix DSN fixture about email `id` to `to`, written by `reporter`. */
  const dsn = (id: string, to: string, reporter: string) =>
    crlf(
      fixture('postfix-user-unknown.eml')
        .replaceAll(FIXTURE_ID, id)
        .replaceAll('nobody@example.net', to)
        .replace('From: MAILER-DAEMON@mx1.example.net', `From: MAILER-DAEMON@${reporter}`),
    );
  /** Yahoo's ARF fixture about email `id` to `to`, written by `reporter`. */
  const arf = (id: string, to: string, reporter: string) =>
    crlf(
      fixture('yahoo-arf.eml')
        .replaceAll(FIXTURE_ID, id)
        .replaceAll('shopper1982@yahoo.com', to)
        .replace('From: feedbackloop@yahoo.com', `From: ${reporter}`),
    );

  const suppression = (email: string) => stack.http(`/suppressions/${encodeURIComponent(email)}`);
  const events = async (id: string) =>
    (await stack.teamEvents('email.')).filter((e) => e.data.email_id === id).map((e) => e.type);
  /** The report changed nothing: `to` is not suppressed, email `id` has no `type` event. */
  async function expectUntouched(to: string, id: string, type: string): Promise<void> {
    expect((await suppression(to)).status).toBe(404);
    expect((await stack.resend.emails.get(id)).data!.last_event).toBe('delivered');
    expect(await events(id)).not.toContain(type);
  }
  /** The report acted: `to` is suppressed by email `id` with `origin`, which is its last event. */
  async function expectSuppressed(to: string, id: string, origin: 'bounce' | 'complaint'): Promise<void> {
    const s = await suppression(to);
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ email: to, origin, source_id: id });
    const last = origin === 'bounce' ? 'bounced' : 'complained';
    expect((await stack.resend.emails.get(id)).data!.last_event).toBe(last);
    expect((await events(id)).filter((t) => t === `email.${last}`)).toHaveLength(1);
  }

  it('a forged DSN for a real sent email suppresses nobody; the genuine one bounces and suppresses', async () => {
    const to = `gone.${tag()}@example.net`;
    const id = await sendAndDeliver(to);
    const verp = `bounces+${id}@${BOUNCE_DOMAIN}`;

    // forged: claims a lenient.test MTA (p=none, so not refused), unsigned, from a host SPF forbids
    const forged = await deliver(dsn(id, to, 'mx.lenient.test'), { from: '', to: [verp] }, 'mx.lenient.test');
    // the report is processed before the reply: the answer means it is already decided
    expect(forged.response).toMatch(/^250 /);
    await expectUntouched(to, id, 'email.bounced');

    // forged as genuine.test's MTA: its p=reject refuses it outright
    const spoofed = await deliver(dsn(id, to, 'mx.genuine.test'), { from: '', to: [verp] }, 'mx.forger.test');
    expect(spoofed.code).toBe(550);
    await expectUntouched(to, id, 'email.bounced');

    // genuine: signed by genuine.test (aligned with mx.genuine.test), from a host its SPF allows
    const genuine = await deliver(
      await signed(dsn(id, to, 'mx.genuine.test')),
      { from: '', to: [verp] },
      'mx.genuine.test',
    );
    expect(genuine.response).toMatch(/^250 /);
    await expectSuppressed(to, id, 'bounce');
  });

  it('a forged ARF complaint suppresses nobody; the genuine one complains and suppresses', async () => {
    const to = `reader.${tag()}@example.org`;
    const id = await sendAndDeliver(to);
    const fbl = `fbl@${BOUNCE_DOMAIN}`;

    const forged = await deliver(
      arf(id, to, 'fbl@lenient.test'),
      { from: 'fbl@lenient.test', to: [fbl] },
      'mx.lenient.test',
    );
    expect(forged.response).toMatch(/^250 /);
    await expectUntouched(to, id, 'email.complained');

    const genuine = await deliver(
      await signed(arf(id, to, 'fbl@genuine.test')),
      { from: 'fbl@genuine.test', to: [fbl] },
      'mx.genuine.test',
    );
    expect(genuine.response).toMatch(/^250 /);
    await expectSuppressed(to, id, 'complaint');
  });
});
