import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SuppressionOrigin } from '@petrel/contracts';
import type { EmailToDeliver, StatusEvent } from '../emails/record.js';
import { processReturnedMail } from './process-report.js';
import type { ReportPorts } from './ports.js';

const ID = '0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';
const VERP = `bounces+${ID}@bounce.petrel.test`;
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));

function sentEmail(to: string[], teamId = 'team-1'): EmailToDeliver {
  return {
    id: ID,
    teamId,
    createdAt: '2024-07-16T10:12:05.000Z',
    createdMs: Date.parse('2024-07-16T10:12:05.000Z'),
    status: 'delivered',
    messageId: `<${ID}@acme.test>`,
    content: {
      from: 'Acme <hello@acme.test>',
      to,
      cc: [],
      bcc: [],
      reply_to: [],
      subject: 'Hi',
      headers: {},
      tags: [],
    } as unknown as EmailToDeliver['content'],
    attempts: 1,
    template: null,
    broadcastId: null,
    contactId: null,
  };
}

function ports(emails: EmailToDeliver[]) {
  const recorded: { teamId: string; emailId: string; items: StatusEvent[] }[] = [];
  const suppressed: { teamId: string; email: string; origin: SuppressionOrigin; sourceId: string | null }[] =
    [];
  let n = 0;
  const p: ReportPorts = {
    bounceDomain: 'bounce.petrel.test',
    clock: { now: () => Date.parse('2024-07-16T10:13:00.000Z'), monotonicMs: () => 0 },
    ids: { newEventId: () => `event-${++n}` },
    emails: {
      find: async (id) => emails.find((e) => e.id === id) ?? null,
      recordEvents: async (teamId, emailId, items) => void recorded.push({ teamId, emailId, items }),
    },
    suppressions: {
      add: async (teamId, email, origin, sourceId) => {
        suppressed.push({ teamId, email, origin, sourceId });
        return { record: { id: 's', email, origin, source_id: sourceId, created_at: '' }, created: true };
      },
    },
  };
  return { p, recorded, suppressed };
}

describe('processReturnedMail', () => {
  it('a hard bounce: email.bounced on the email, the address suppressed (origin bounce)', async () => {
    const { p, recorded, suppressed } = ports([sentEmail(['Nobody@Example.net'])]);
    const out = await processReturnedMail(
      { raw: fixture('postfix-user-unknown.eml'), envelopeRecipients: [VERP] },
      p,
    );
    expect(out).toMatchObject({
      kind: 'bounced',
      teamId: 'team-1',
      emailId: ID,
      suppressed: ['Nobody@Example.net'],
    });
    expect(recorded).toHaveLength(1);
    const [item] = recorded[0]!.items;
    expect(item!.status).toBe('bounced');
    expect(item!.event).toMatchObject({
      type: 'email.bounced',
      teamId: 'team-1',
      data: {
        email_id: ID,
        message_id: `<${ID}@acme.test>`,
        to: ['Nobody@Example.net'],
        bounce: {
          type: 'Permanent',
          subType: 'NoEmail',
          diagnosticCode: [expect.stringMatching(/^smtp; 550 5\.1\.1/)],
        },
      },
    });
    expect(suppressed).toEqual([
      { teamId: 'team-1', email: 'Nobody@Example.net', origin: 'bounce', sourceId: ID },
    ]);
  });

  it('a full mailbox is a bounce that suppresses nobody; an unknown user beside it is suppressed', async () => {
    const { p, recorded, suppressed } = ports([sentEmail(['full@example.de', 'gone@example.de'])]);
    const out = await processReturnedMail(
      { raw: fixture('postfix-mailbox-full-multi.eml'), envelopeRecipients: [VERP] },
      p,
    );
    expect(out.kind).toBe('bounced');
    const bounce = (recorded[0]!.items[0]!.event.data as { bounce: { diagnosticCode: string[] } }).bounce;
    expect(bounce.diagnosticCode).toHaveLength(2);
    expect(suppressed.map((s) => s.email)).toEqual(['gone@example.de']);
  });

  it('a delay warning records email.delivery_delayed and suppresses nobody', async () => {
    const { p, recorded, suppressed } = ports([sentEmail(['slow@busy.example.com'])]);
    const out = await processReturnedMail(
      { raw: fixture('sendmail-delayed.eml'), envelopeRecipients: [VERP] },
      p,
    );
    expect(out.kind).toBe('delayed');
    expect(recorded[0]!.items[0]!.status).toBe('delivery_delayed');
    expect(suppressed).toEqual([]);
  });

  it('matches by Message-ID when the report did not come to the VERP address', async () => {
    const { p, suppressed } = ports([sentEmail(['former.employee@contoso.com'])]);
    const out = await processReturnedMail(
      {
        raw: fixture('exchange-online-recipient-not-found.eml'),
        envelopeRecipients: ['postmaster@bounce.petrel.test'],
      },
      p,
    );
    expect(out.kind).toBe('bounced');
    expect(suppressed.map((s) => s.email)).toEqual(['former.employee@contoso.com']);
  });

  it('suppresses no address that was not a recipient of the email', async () => {
    const { p, recorded, suppressed } = ports([sentEmail(['a@x.test', 'b@x.test'])]);
    const out = await processReturnedMail(
      { raw: fixture('gmail-no-such-user.eml'), envelopeRecipients: [VERP] },
      p,
    );
    expect(out.kind).toBe('bounced');
    expect(recorded).toHaveLength(1);
    expect(suppressed).toEqual([]);
  });

  it('a report of an unknown email changes nothing', async () => {
    const { p, recorded, suppressed } = ports([]);
    const out = await processReturnedMail({ raw: fixture('exim-failed.eml'), envelopeRecipients: [VERP] }, p);
    expect(out).toEqual({ kind: 'unmatched', report: 'dsn', candidates: [ID] });
    expect(recorded).toEqual([]);
    expect(suppressed).toEqual([]);
  });

  it.each([
    ['yahoo-arf.eml', 'shopper1982@yahoo.com'],
    ['aol-verizon-arf-redacted.eml', 'member@aol.com'],
    ['microsoft-jmrp.eml', 'reader@outlook.com'],
  ])('%s: email.complained, the complainant suppressed (origin complaint)', async (name, rcpt) => {
    const { p, recorded, suppressed } = ports([sentEmail([rcpt])]);
    const out = await processReturnedMail(
      { raw: fixture(name), envelopeRecipients: ['fbl@bounce.petrel.test'] },
      p,
    );
    expect(out).toMatchObject({ kind: 'complained', feedbackType: 'abuse', suppressed: [rcpt] });
    expect(recorded[0]!.items[0]).toMatchObject({
      status: 'complained',
      event: { type: 'email.complained', data: { email_id: ID, complaint: { feedbackType: 'abuse' } } },
    });
    expect(suppressed).toEqual([{ teamId: 'team-1', email: rcpt, origin: 'complaint', sourceId: ID }]);
  });

  it('a complaint about one of several recipients suppresses that one only', async () => {
    const { p, suppressed } = ports([sentEmail(['other@yahoo.com', 'shopper1982@yahoo.com'])]);
    await processReturnedMail(
      { raw: fixture('yahoo-arf.eml'), envelopeRecipients: ['fbl@bounce.petrel.test'] },
      p,
    );
    expect(suppressed.map((s) => s.email)).toEqual(['shopper1982@yahoo.com']);
  });

  it('an ordinary message is no report', async () => {
    const { p } = ports([]);
    const out = await processReturnedMail(
      { raw: fixture('inbound-with-attachments.eml'), envelopeRecipients: [VERP] },
      p,
    );
    expect(out).toEqual({ kind: 'not_a_report' });
  });
});

describe('processReturnedMail at a return-path domain of a sending domain', () => {
  const OTHER = '0190b7c2-5a3e-7d41-9f2a-000000000000';
  // the returned headers name another email: only the envelope's VERP names ours
  const raw = fixture('postfix-user-unknown.eml').toString().replaceAll(ID, OTHER);
  const rpVerp = `bounces+${ID}@Send.Acme.Test`;
  const owned = (teamId: string) => new Map([['send.acme.test', teamId]]);

  it("reads the VERP id there when the domain is the email's team's", async () => {
    const { p, suppressed } = ports([sentEmail(['nobody@example.net'])]);
    const out = await processReturnedMail(
      { raw, envelopeRecipients: [rpVerp], returnPathTeams: owned('team-1') },
      p,
    );
    expect(out).toMatchObject({ kind: 'bounced', teamId: 'team-1', emailId: ID });
    expect(suppressed.map((s) => s.email)).toEqual(['nobody@example.net']);
  });

  it('matches nothing when the domain is not known as a return path, or is another team’s', async () => {
    const { p, recorded, suppressed } = ports([sentEmail(['nobody@example.net'])]);
    expect(await processReturnedMail({ raw, envelopeRecipients: [rpVerp] }, p)).toMatchObject({
      kind: 'unmatched',
      candidates: [OTHER],
    });
    expect(
      await processReturnedMail({ raw, envelopeRecipients: [rpVerp], returnPathTeams: owned('team-2') }, p),
    ).toMatchObject({ kind: 'unmatched', candidates: [ID, OTHER] });
    // the returned Message-ID names the email, yet team-2's domain still cannot bounce it
    const withOwnId = fixture('postfix-user-unknown.eml');
    expect(
      await processReturnedMail(
        { raw: withOwnId, envelopeRecipients: [rpVerp], returnPathTeams: owned('team-2') },
        p,
      ),
    ).toMatchObject({ kind: 'unmatched' });
    expect(recorded).toEqual([]);
    expect(suppressed).toEqual([]);
  });

  it('a report that also reached BOUNCE_DOMAIN is about any team’s email', async () => {
    const { p } = ports([sentEmail(['nobody@example.net'])]);
    const out = await processReturnedMail(
      { raw, envelopeRecipients: [rpVerp, VERP], returnPathTeams: owned('team-2') },
      p,
    );
    expect(out).toMatchObject({ kind: 'bounced', teamId: 'team-1', emailId: ID });
  });
});
