/**
 * DKIM e2e: an email sent from a verified domain leaves the stack signed with the domain's RSA
 * and Ed25519 keys (DKIM_ED25519=true), and mailauth's verifier — an implementation independent
 * of Petrel's signer — checks both signatures against the records published in a local DNS
 * server; altering a signed header breaks them. The return path is the email's VERP address
 * under the domain's return-path subdomain; an email from a domain the team does not have goes
 * unsigned, as before.
 */
import { Resolver } from 'node:dns/promises';
import { dkimVerify } from 'mailauth';
import { describe, expect, it } from 'vitest';
import type { SinkMessage } from '@petrel/testing';
import { fileDnsStack, sendPlain } from './helpers.js';

const resolver = new Resolver({ timeout: 1_000, tries: 2 });
const { stack, dns } = fileDnsStack((server) => {
  resolver.setServers([server.address]);
  return { DKIM_ED25519: 'true' };
});

/** mailauth's DNS hook over the local server. */
const mailauthResolver = (name: string, rrtype: string) =>
  rrtype === 'TXT' ? resolver.resolveTxt(name) : (resolver.resolve(name, rrtype) as Promise<string[]>);

const verdicts = async (raw: Buffer | string) =>
  (await dkimVerify(raw, { resolver: mailauthResolver })).results.map(
    // mailauth 4.13 reports the algorithm as `algo` (its typings say `algorithm`)
    (r) => `${r.signingDomain}/${r.selector}/${(r as { algo?: string }).algo}: ${r.status.result}`,
  );

async function sent(emailId: string): Promise<SinkMessage> {
  await stack.settled([emailId]);
  const found = stack.sink.messages.find((m) => m.raw.includes(emailId));
  if (!found) throw new Error(`no message for ${emailId}`);
  return found;
}

describe('DKIM signing', () => {
  it('signs with RSA and Ed25519; mailauth verifies both and fails them when a signed header changes', async () => {
    const domain = (await stack.resend.domains.create({ name: 'signed.e2e.test' })).data!;
    expect(domain.records.filter((r) => r.record === 'DKIM').map((r) => r.name)).toEqual([
      'petrel._domainkey.signed.e2e.test',
      'petrel-ed25519._domainkey.signed.e2e.test',
    ]);
    for (const r of domain.records) dns.add({ name: r.name, type: r.type as 'TXT' | 'MX', value: r.value });
    await stack.resend.domains.verify(domain.id);
    expect((await stack.resend.domains.get(domain.id)).data!.status).toBe('verified');

    const { data } = await stack.resend.emails.send({
      from: 'Signed Sender <hello@signed.e2e.test>',
      to: ['one@dest.e2e.test'],
      cc: ['two@dest.e2e.test'],
      subject: 'Signed, sealed, delivered',
      html: '<p>Hello   world</p>',
      headers: { 'List-Unsubscribe': '<https://example.test/u>' },
    });
    const message = await sent(data!.id);
    expect(message.envelope.from).toBe(`bounces+${data!.id}@send.signed.e2e.test`);
    expect(await verdicts(message.raw)).toEqual([
      'signed.e2e.test/petrel/rsa-sha256: pass',
      'signed.e2e.test/petrel-ed25519/ed25519-sha256: pass',
    ]);

    const altered = message.raw
      .toString('latin1')
      .replace('Subject: Signed, sealed', 'Subject: Unsigned, sealed');
    expect(altered).not.toBe(message.raw.toString('latin1'));
    expect(await verdicts(Buffer.from(altered, 'latin1'))).toEqual([
      'signed.e2e.test/petrel/rsa-sha256: fail',
      'signed.e2e.test/petrel-ed25519/ed25519-sha256: fail',
    ]);
  });

  it('leaves an email from a domain the team does not have unsigned', async () => {
    const message = await sent(
      await sendPlain(stack, 'plain@elsewhere.e2e.test', 'three@dest.e2e.test', 'Plain'),
    );
    expect(message.raw.toString('latin1')).not.toMatch(/^DKIM-Signature:/im);
    expect(message.envelope.from).toBe('plain@elsewhere.e2e.test');
  });
});
