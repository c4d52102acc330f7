/**
 * The DSN and ARF parsers on real-world report formats (fixtures/): what each reports per
 * recipient, which email it is about, and that neither parser takes the other's reports.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseArf } from './arf.js';
import { bounceSubType, parseDsn } from './dsn.js';
import { emailIdCandidates } from './match-email.js';

const ID = '0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';
const BOUNCE_DOMAIN = 'bounce.petrel.test';
const fixture = (name: string, crlf = false): string => {
  const text = readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');
  return crlf ? text.replace(/\r?\n/g, '\r\n') : text;
};
const candidates = (headers: Map<string, string[]>, more: { originalMailFrom?: string } = {}) =>
  emailIdCandidates({
    envelopeRecipients: [],
    bounceDomain: BOUNCE_DOMAIN,
    originalHeaders: headers,
    ...more,
  });

describe('parseDsn', () => {
  it.each([false, true])('Postfix, user unknown (CRLF: %s)', async (crlf) => {
    const dsn = (await parseDsn(fixture('postfix-user-unknown.eml', crlf)))!;
    expect(dsn.reportingMta).toBe('mx1.example.net');
    expect(dsn.recipients).toHaveLength(1);
    const r = dsn.recipients[0]!;
    expect(r).toMatchObject({
      finalRecipient: 'nobody@example.net',
      originalRecipient: 'nobody@example.net',
      action: 'failed',
      status: '5.1.1',
      remoteMta: 'mailstore.example.net',
    });
    expect(r.diagnosticCode).toBe(
      'smtp; 550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown in local recipient table',
    );
    expect(r.bounce).toEqual({
      type: 'Permanent',
      subType: 'NoEmail',
      message:
        '550 5.1.1 <nobody@example.net>: Recipient address rejected: User unknown in local recipient table',
      diagnosticCode: [r.diagnosticCode],
    });
    expect(candidates(dsn.originalHeaders)).toEqual([ID]);
  });

  it('Postfix, two recipients: a full mailbox and an unknown user, headers only', async () => {
    const dsn = (await parseDsn(fixture('postfix-mailbox-full-multi.eml')))!;
    expect(dsn.recipients.map((r) => [r.finalRecipient, r.status, r.bounce?.subType])).toEqual([
      ['full@example.de', '5.2.2', 'MailboxFull'],
      ['gone@example.de', '5.1.1', 'NoEmail'],
    ]);
    expect(candidates(dsn.originalHeaders)).toEqual([ID]);
  });

  it('Exim: Status 5.0.0 takes the detailed status of the reply', async () => {
    const dsn = (await parseDsn(fixture('exim-failed.eml')))!;
    const r = dsn.recipients[0]!;
    expect(r.finalRecipient).toBe('olduser@example.org');
    expect(r.status).toBe('5.1.1');
    expect(r.bounce).toMatchObject({ type: 'Permanent', subType: 'NoEmail' });
    expect(dsn.originalHeaders.get('message-id')).toEqual([`<${ID}@acme.test>`]);
  });

  it('Gmail: multi-line diagnostic, human part with an image, original attached', async () => {
    const dsn = (await parseDsn(fixture('gmail-no-such-user.eml')))!;
    expect(dsn.reportingMta).toBe('googlemail.com');
    const r = dsn.recipients[0]!;
    expect(r.finalRecipient).toBe('no.such.user.8841@gmail.com');
    expect(r.status).toBe('5.1.1');
    expect(r.diagnosticCode).toMatch(
      /^smtp; 550-5\.1\.1 The email account that you tried to reach does not exist\./,
    );
    expect(r.diagnosticCode).toMatch(/gsmtp$/);
    expect(r.bounce?.type).toBe('Permanent');
    expect(candidates(dsn.originalHeaders)).toEqual([ID]);
  });

  it('Exchange Online / Outlook: 5.1.10 recipient not found, text/rfc822-headers', async () => {
    const dsn = (await parseDsn(fixture('exchange-online-recipient-not-found.eml')))!;
    expect(dsn.reportingMta).toBe('AM9PR01MB7321.eurprd01.prod.exchangelabs.com');
    const r = dsn.recipients[0]!;
    expect(r).toMatchObject({
      originalRecipient: 'former.employee@contoso.com',
      finalRecipient: 'former.employee@contoso.com',
      status: '5.1.10',
    });
    expect(r.bounce).toMatchObject({ type: 'Permanent', subType: 'NoEmail' });
    expect(r.diagnosticCode).toContain('RESOLVER.ADR.RecipientNotFound');
    // no Return-Path in the returned headers: the Message-ID names the email
    expect(candidates(dsn.originalHeaders)).toEqual([ID]);
  });

  it('Sendmail: a delay warning is no bounce', async () => {
    const dsn = (await parseDsn(fixture('sendmail-delayed.eml')))!;
    expect(dsn.recipients).toEqual([
      expect.objectContaining({
        finalRecipient: 'slow@busy.example.com',
        action: 'delayed',
        status: '4.4.1',
        bounce: null,
      }),
    ]);
  });

  it('Sendmail: a disabled mailbox (5.2.1)', async () => {
    const dsn = (await parseDsn(fixture('sendmail-failed.eml')))!;
    expect(dsn.recipients[0]!.bounce).toMatchObject({ type: 'Permanent', subType: 'General' });
    expect(dsn.recipients[0]!.diagnosticCode).toBe('SMTP; 550 5.2.1 Mailbox disabled for this recipient');
  });

  it.each([
    'yahoo-arf.eml',
    'aol-verizon-arf-redacted.eml',
    'microsoft-jmrp.eml',
    'rfc5965-example.eml',
    'inbound-with-attachments.eml',
  ])('is null for %s', async (name) => {
    expect(await parseDsn(fixture(name))).toBeNull();
  });

  it.each([
    ['5.1.1', 'NoEmail'],
    ['5.2.2', 'MailboxFull'],
    ['5.3.4', 'MessageTooLarge'],
    ['5.7.1', 'MessageRejected'],
    ['5.4.4', 'General'],
    [undefined, 'General'],
  ])('sorts the status %s into the subType %s', (status, subType) => {
    expect(bounceSubType(status)).toBe(subType);
  });
});

describe('parseArf', () => {
  it('Yahoo CFL: recipient and VERP mail-from given', async () => {
    const arf = (await parseArf(fixture('yahoo-arf.eml', true)))!;
    expect(arf).toMatchObject({
      feedbackType: 'abuse',
      userAgent: 'Yahoo!-Mail-Feedback/2.0',
      sourceIp: '192.0.2.10',
      originalMailFrom: `bounces+${ID}@${BOUNCE_DOMAIN}`,
      originalRcptTo: ['shopper1982@yahoo.com'],
      arrivalDate: 'Wed, 17 Jul 2024 09:10:02 +0000',
    });
    expect(candidates(arf.originalHeaders, { originalMailFrom: arf.originalMailFrom })).toEqual([ID]);
  });

  it('AOL / Verizon Media: recipient redacted, the email found by its Return-Path', async () => {
    const arf = (await parseArf(fixture('aol-verizon-arf-redacted.eml')))!;
    expect(arf.feedbackType).toBe('abuse');
    expect(arf.userAgent).toBe('AOL SComp');
    expect(arf.originalRcptTo).toEqual([]);
    expect(arf.originalHeaders.get('to')).toEqual(['redacted@aol.com']);
    expect(candidates(arf.originalHeaders)).toEqual([ID]);
  });

  it('Microsoft JMRP: the recipient from X-HmXmrOriginalRecipient, the email from its Message-ID', async () => {
    const arf = (await parseArf(fixture('microsoft-jmrp.eml')))!;
    expect(arf.userAgent).toBe('Microsoft Junk Mail Reporting Program');
    expect(arf.originalRcptTo).toEqual(['<reader@outlook.com>']);
    expect(candidates(arf.originalHeaders)).toEqual([ID]);
  });

  it('Microsoft JMRP, older form: no multipart/report, the message attached', async () => {
    const legacy = [
      'From: staff@hotmail.com',
      'To: jmrp@bounce.petrel.test',
      'Subject: complaint about message from 192.0.2.10',
      'X-HmXmrOriginalRecipient: <reader@outlook.com>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: message/rfc822',
      '',
      `Message-ID: <${ID}@acme.test>`,
      'To: reader@outlook.com',
      '',
      'Hi',
      '--b--',
      '',
    ].join('\r\n');
    const arf = (await parseArf(legacy))!;
    expect(arf).toMatchObject({ feedbackType: 'abuse', userAgent: 'JMRP' });
    expect(candidates(arf.originalHeaders)).toEqual([ID]);
  });

  it('the RFC 5965 example: the email found by Original-Mail-From only', async () => {
    const arf = (await parseArf(fixture('rfc5965-example.eml')))!;
    expect(arf.feedbackType).toBe('abuse');
    expect(arf.originalRcptTo).toEqual(['user@example.com']);
    expect(candidates(arf.originalHeaders)).toEqual([]);
    expect(candidates(arf.originalHeaders, { originalMailFrom: arf.originalMailFrom })).toEqual([ID]);
  });

  it.each([
    'postfix-user-unknown.eml',
    'gmail-no-such-user.eml',
    'exim-failed.eml',
    'inbound-with-attachments.eml',
  ])('is null for %s', async (name) => {
    expect(await parseArf(fixture(name))).toBeNull();
  });
});
