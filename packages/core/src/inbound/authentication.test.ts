import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { EmailToDeliver } from '../emails/record.js';
import type { InboundAuthentication } from '@petrel/contracts';
import { dmarcRefusal, reportTrust, withoutForgedAuthResults } from './authentication.js';
import { processReturnedMail } from './process-report.js';
import type { ReportPorts } from './ports.js';

/** Results of a message from `domain`, with the parts a case changes. */
function results(
  dmarc: Partial<InboundAuthentication['dmarc']>,
  domain = 'mx.example.net',
): InboundAuthentication {
  return {
    spf: { result: 'none', domain },
    dkim: [],
    dmarc: {
      result: 'none',
      domain,
      policy: null,
      pct: null,
      alignment: { spf: null, dkim: null },
      ...dmarc,
    },
    arc: { result: 'none' },
    bimi: { result: 'skipped', location: null },
  };
}

describe('dmarcRefusal (RFC 7489 section 6.6)', () => {
  it('refuses a DMARC failure under p=reject with 5.7.1 naming the domain', () => {
    expect(dmarcRefusal(results({ result: 'fail', policy: 'reject', pct: 100 }))).toBe(
      '5.7.1 Rejected by the DMARC policy of mx.example.net: the message is not authenticated',
    );
    expect(dmarcRefusal(results({ result: 'fail', policy: 'reject', pct: null }))).toMatch(/^5\.7\.1 /);
  });

  it('accepts a failure under quarantine or none, a sampled reject (pct < 100), and any pass', () => {
    expect(dmarcRefusal(results({ result: 'fail', policy: 'quarantine', pct: 100 }))).toBeNull();
    expect(dmarcRefusal(results({ result: 'fail', policy: 'none', pct: 100 }))).toBeNull();
    expect(dmarcRefusal(results({ result: 'fail', policy: 'reject', pct: 50 }))).toBeNull();
    expect(dmarcRefusal(results({ result: 'pass', policy: 'reject', pct: 100 }))).toBeNull();
    // a DNS failure is not a policy failure: never a permanent refusal
    expect(dmarcRefusal(results({ result: 'temperror', policy: null }))).toBeNull();
  });
});

describe('reportTrust', () => {
  it('trusts DMARC pass', () => {
    expect(
      reportTrust(
        results({ result: 'pass', policy: 'reject', alignment: { spf: null, dkim: 'example.net' } }),
      ),
    ).toEqual({ trusted: true, by: 'dmarc pass (dkim example.net)' });
  });

  it('without a DMARC record, trusts an SPF or DKIM pass aligned with From and nothing else', () => {
    expect(
      reportTrust(results({ result: 'none', alignment: { spf: 'mx.example.net', dkim: null } })),
    ).toEqual({
      trusted: true,
      by: 'no DMARC policy; spf mx.example.net aligned with mx.example.net',
    });
    expect(reportTrust(results({ result: 'none' }))).toEqual({
      trusted: false,
      reason: 'neither SPF nor DKIM passed for a domain aligned with mx.example.net',
    });
  });

  it('distrusts DMARC fail (whatever the policy), DNS errors and a message without one From', () => {
    for (const policy of ['none', 'quarantine', 'reject'] as const) {
      expect(reportTrust(results({ result: 'fail', policy }))).toEqual({
        trusted: false,
        reason: 'dmarc fail for mx.example.net',
      });
    }
    expect(reportTrust(results({ result: 'temperror' }))).toMatchObject({ trusted: false });
    expect(
      reportTrust(results({ result: 'none', domain: null, alignment: { spf: 'x.test', dkim: null } })),
    ).toEqual({
      trusted: false,
      reason: 'no single From address to authenticate',
    });
  });
});

describe('processReturnedMail with authentication', () => {
  const ID = '0190b7c2-5a3e-7d41-9f2a-1c2d3e4f5a6b';
  const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}`, import.meta.url));
  const email = {
    id: ID,
    teamId: 'team-1',
    content: {
      from: 'hello@acme.test',
      to: ['nobody@example.net'],
      cc: [],
      bcc: [],
      subject: 'Hi',
      tags: [],
    },
  } as unknown as EmailToDeliver;

  function ports() {
    const acted: string[] = [];
    const p: ReportPorts = {
      bounceDomain: 'bounce.petrel.test',
      clock: { now: () => 0, monotonicMs: () => 0 },
      ids: { newEventId: () => 'event-1' },
      emails: {
        find: async (id) => (id === ID ? email : null),
        recordEvents: async (_t, _e, items) => void acted.push(...items.map((i) => i.event.type)),
      },
      suppressions: {
        add: async (_t, address, origin, sourceId) => {
          acted.push(`suppressed ${address}`);
          return {
            record: { id: 's', email: address, origin, source_id: sourceId, created_at: '' },
            created: true,
          };
        },
      },
    };
    return { p, acted };
  }
  const mail = (name: string, authentication?: InboundAuthentication) => ({
    raw: fixture(name),
    envelopeRecipients: [`bounces+${ID}@bounce.petrel.test`],
    ...(authentication && { authentication }),
  });

  it('an unauthenticated DSN or ARF report records nothing and suppresses nobody, even at its VERP address', async () => {
    const forged = results({ result: 'fail', policy: 'none' });
    for (const [name, report] of [
      ['postfix-user-unknown.eml', 'dsn'],
      ['yahoo-arf.eml', 'arf'],
    ] as const) {
      const { p, acted } = ports();
      expect(await processReturnedMail(mail(name, forged), p)).toEqual({
        kind: 'unauthenticated',
        report,
        reason: 'dmarc fail for mx.example.net',
      });
      expect(acted).toEqual([]);
    }
  });

  it('an authenticated DSN bounces and suppresses as before; unchecked (INBOUND_AUTH=off) too', async () => {
    const genuine = results({
      result: 'pass',
      policy: 'reject',
      alignment: { spf: null, dkim: 'example.net' },
    });
    for (const m of [mail('postfix-user-unknown.eml', genuine), mail('postfix-user-unknown.eml')]) {
      const { p, acted } = ports();
      expect(await processReturnedMail(m, p)).toMatchObject({
        kind: 'bounced',
        suppressed: ['nobody@example.net'],
      });
      expect(acted).toEqual(['email.bounced', 'suppressed nobody@example.net']);
    }
  });

  it('a message that is no report stays not_a_report whatever its authentication', async () => {
    const { p, acted } = ports();
    const out = await processReturnedMail(
      {
        raw: Buffer.from('From: a@b.test\r\nSubject: hi\r\n\r\nhello\r\n'),
        envelopeRecipients: [],
        authentication: results({ result: 'fail' }),
      },
      p,
    );
    expect(out).toEqual({ kind: 'not_a_report' });
    expect(acted).toEqual([]);
  });
});

describe('withoutForgedAuthResults (RFC 8601 section 5)', () => {
  const body = '\r\nHello\r\nAuthentication-Results: mx.petrel.test; dkim=pass\r\n';
  const msg = (head: string) => Buffer.from(head + body, 'latin1');

  it("removes fields claiming this server's authserv-id, folded lines included, and keeps the others", () => {
    const raw = msg(
      'Received: from a\r\n' +
        'Authentication-Results: MX.Petrel.Test;\r\n dkim=pass header.d=bank.test;\r\n\tdmarc=pass\r\n' +
        'Authentication-Results: mx.other.test; spf=fail\r\n' +
        'authentication-results:mx.petrel.test (forged); spf=pass\r\n' +
        'Subject: hi\r\n',
    );
    expect(withoutForgedAuthResults(raw, 'mx.petrel.test').toString('latin1')).toBe(
      'Received: from a\r\nAuthentication-Results: mx.other.test; spf=fail\r\nSubject: hi\r\n' + body,
    );
  });

  it('returns the same buffer when nothing claims the id (the body is never read)', () => {
    const raw = msg('Authentication-Results: mx.other.test; spf=pass\r\nSubject: hi\r\n');
    expect(withoutForgedAuthResults(raw, 'mx.petrel.test')).toBe(raw);
    const plain = msg('Subject: hi\r\n');
    expect(withoutForgedAuthResults(plain, 'mx.petrel.test')).toBe(plain);
  });
});
