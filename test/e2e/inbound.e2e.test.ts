/**
 * Inbound mail on one redis-server (scenarios/inbound.ts): received emails, the no-relay rule,
 * bounces and complaints through the VERP return path, and R22 on the inbound port. Then the
 * return path of a verified sending domain (`bounces+<id>@send.<domain>`, where the domain's
 * published MX sends DSNs): a DSN there bounces the email, and unknown domains stay refused.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { fileDnsStack } from './helpers.js';
import {
  FIXTURE_ID,
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
