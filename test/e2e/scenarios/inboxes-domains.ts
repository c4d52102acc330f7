/**
 * Inboxes at a team's own verified domain receive mail, shared by the single-node suite
 * (inbox-domains.e2e.test.ts) and the Redis Cluster suite (audience-cluster.e2e.test.ts): the
 * domain created with receiving enabled, its records published in a local authoritative DNS
 * server (the stack's DNS_SERVERS) and verified through the SDK, then an inbox at it; mail sent
 * over SMTP to the inbox's address is taken by the inbound server (no INBOUND_DOMAINS entry
 * names the domain) and threads into the inbox, while any other address of the domain, and
 * every address of a domain not verified, is refused at RCPT (550).
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { waitUntil, type TestDnsServer } from '@petrel/testing';
import { mta } from './inbound.js';
import { ok, type Stack } from '../helpers.js';

export function inboxDomainScenarios(current: () => Stack, dns: () => TestDnsServer): void {
  describe('inboxes at a verified domain', () => inboxDomainTests(current, dns));
}

function inboxDomainTests(current: () => Stack, dns: () => TestDnsServer): void {
  let stack: Stack;
  beforeEach(() => {
    stack = current();
  });

  type PublishedRecord = { name: string; type: string; value: string; priority?: number };

  /** Publish what the API asks for, as the domain's owner would at their DNS provider. */
  function publish(records: readonly PublishedRecord[]): void {
    for (const r of records)
      dns().add({
        name: r.name,
        type: r.type as 'TXT' | 'MX',
        value: r.value,
        ...(r.priority !== undefined && { priority: r.priority }),
      });
  }

  const mail = (to: string, subject: string) =>
    mta(stack.smtpPorts.inbound!).sendMail({
      from: 'ada@customer.example',
      to,
      subject,
      text: `About ${subject}`,
    });

  it('receive mail for the inbox address only, once the domain is verified with receiving enabled', async () => {
    const t = Date.now().toString(36);
    const name = `desk-${t}.e2e.test`;
    const domain = ok(await stack.resend.domains.create({ name, capabilities: { receiving: 'enabled' } }));

    // not verified: no inbox there, and its mail is refused
    const early = await stack.resend.inboxes.create({ emailAddress: `support@${name}` });
    expect(early.error).toMatchObject({ statusCode: 422 });
    expect(early.error!.message).toMatch(/^email_address: must be at one of the team’s receiving domains/);
    // (another address than the inbox's: a refusal is cached for RETURN_PATH_CACHE_MS)
    await expect(mail(`hello@${name}`, 'too early')).rejects.toMatchObject({ responseCode: 550 });

    publish(domain.records as PublishedRecord[]);
    ok(await stack.resend.domains.verify(domain.id));
    expect(ok(await stack.resend.domains.get(domain.id))).toMatchObject({ status: 'verified' });

    const inbox = ok(await stack.resend.inboxes.create({ emailAddress: `Support@${name.toUpperCase()}` }));
    const info = await mail(`support@${name}`, `Order ${t}`);
    expect(info.response).toMatch(/^250 /);
    // filed before the 250: the thread is there, and the message is a received email too
    const threads = ok(await stack.resend.inboxes.threads.list({ inboxId: inbox.id })).data;
    expect(threads).toEqual([
      expect.objectContaining({ subject: `Order ${t}`, from: 'ada@customer.example' }),
    ]);
    const [email] = ok(
      await stack.resend.inboxes.threads.emails.list({ inboxId: inbox.id, threadId: threads[0]!.id }),
    ).data;
    expect(ok(await stack.resend.emails.receiving.get(email!.id))).toMatchObject({
      subject: `Order ${t}`,
      to: [`support@${name}`],
    });
    expect(ok(await stack.resend.inboxes.get(inbox.id))).toMatchObject({ unread: 1 });

    // another address of the verified domain is not an inbox: refused, nothing stored
    await expect(mail(`sales@${name}`, 'not an inbox')).rejects.toMatchObject({ responseCode: 550 });
    const received = ok(await stack.resend.emails.receiving.list({ limit: 100 })).data;
    expect(received.filter((r) => r.subject === 'not an inbox' || r.subject === 'too early')).toEqual([]);

    // a message for both addresses: only the inbox's recipient is taken
    const both = await mta(stack.smtpPorts.inbound!).sendMail({
      from: 'ada@customer.example',
      to: [`support@${name}`, `sales@${name}`],
      subject: `Both ${t}`,
      text: 'hi',
    });
    expect(both.accepted).toEqual([`support@${name}`]);
    expect(both.rejected).toEqual([`sales@${name}`]);
    await waitUntil(
      async () =>
        ok(await stack.resend.inboxes.threads.list({ inboxId: inbox.id })).data.some(
          (x) => x.subject === `Both ${t}`,
        ),
      { timeoutMs: 10_000, message: 'the message for both filed into the inbox' },
    );
  });
}
