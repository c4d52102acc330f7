import { describe, expect, it } from 'vitest';
import { emailToDeliver, memoryDeliverDeps } from '@petrel/testing';
import { deliverEmail, DELIVERY_STAGES } from '../deliver-email.js';
import type { EmailToDeliver } from '../../emails/record.js';
import type { DkimSigner, SendingDomain } from '../../domains/domains-port.js';

const TEAM = 'team-1';
const job = (email: EmailToDeliver) => ({ teamId: TEAM, emailId: email.id, attemptsMade: 0 });

const acme = (over: Partial<SendingDomain> = {}): SendingDomain => ({
  id: 'd1',
  name: 'acme.test',
  returnPathDomain: 'send.acme.test',
  tls: 'enforced',
  verified: true,
  keys: [{ selector: 'petrel', algorithm: 'rsa-sha256', privateKeyPem: 'pem' }],
  ...over,
});

/** A signer that prepends a readable stand-in header naming the domain and selectors. */
const signer: DkimSigner & { calls: number } = {
  calls: 0,
  async sign(raw, { domain, keys }) {
    this.calls++;
    return Buffer.concat([
      Buffer.from(`DKIM-Signature: d=${domain}; s=${keys.map((k) => k.selector).join(',')}\r\n`),
      raw,
    ]);
  },
};

function setup(domain: SendingDomain | null) {
  const deps = memoryDeliverDeps();
  const lookups: string[] = [];
  const withDomains = {
    ...deps,
    signer,
    domains: {
      forSending: async (teamId: string, name: string) => {
        lookups.push(`${teamId}/${name}`);
        return domain;
      },
    },
  };
  const email = emailToDeliver({ content: { from: 'Acme <Hello@ACME.test>' } });
  deps.emails.put(email);
  return { deps, withDomains, email, lookups };
}

describe('the sign stage', () => {
  it('runs between build-mime and send', () => {
    const names = DELIVERY_STAGES.map((s) => s.name);
    // only simulate (which narrows envelopes, never the bytes) may sit between build-mime and sign
    expect(names.slice(names.indexOf('build-mime') + 1, names.indexOf('sign'))).toEqual(['simulate']);
    expect(names.indexOf('send')).toBe(names.indexOf('sign') + 1);
  });

  it("signs with the from-domain's keys, sets the VERP return path and the TLS policy", async () => {
    const { deps, withDomains, email, lookups } = setup(acme());
    expect(await deliverEmail(job(email), withDomains)).toEqual({ kind: 'delivered' });
    expect(lookups).toEqual([`${TEAM}/acme.test`]);
    const sent = deps.smtp.sent[0]!;
    expect(sent.raw.toString()).toMatch(/^DKIM-Signature: d=acme\.test; s=petrel\r\n/);
    expect(sent.envelope.from).toBe(`bounces+${email.id}@send.acme.test`);
    expect(sent.tls).toBe('enforced');
  });

  it('an unverified domain is signed but keeps the envelope sender', async () => {
    const { deps, withDomains, email } = setup(acme({ verified: false }));
    await deliverEmail(job(email), withDomains);
    const sent = deps.smtp.sent[0]!;
    expect(sent.raw.toString()).toMatch(/^DKIM-Signature:/);
    expect(sent.envelope.from).not.toContain('bounces+');
  });

  it('leaves an email from a domain the team does not have, or without the ports, as built', async () => {
    const none = setup(null);
    await deliverEmail(job(none.email), none.withDomains);
    expect(none.deps.smtp.sent[0]!.raw.toString()).not.toMatch(/DKIM-Signature/);
    expect(none.deps.smtp.sent[0]!.tls).toBeUndefined();

    const unwired = setup(acme());
    await deliverEmail(job(unwired.email), unwired.deps);
    expect(unwired.lookups).toEqual([]);
    expect(unwired.deps.smtp.sent[0]!.raw.toString()).not.toMatch(/DKIM-Signature/);
  });
});
