/**
 * Domains e2e: the SDK's domains.create/get/list/update/verify/remove against the whole stack,
 * with a local authoritative DNS server standing in for the owner's zone (DNS_SERVERS points
 * the API and the scheduler at it). Publishing the records the API hands out verifies the
 * domain; removing one fails it at the scheduler's next check. With ENFORCE_VERIFIED_DOMAINS a
 * `from` at an unverified domain is refused with Resend's 403, and a sending key restricted to a
 * domain sends from that domain only.
 */
import { describe, expect, it } from 'vitest';
import { Resend } from 'resend';
import { waitUntil } from '@petrel/testing';
import { fileDnsStack } from './helpers.js';

const { stack, dns } = fileDnsStack(() => ({
  DOMAIN_VERIFY_INTERVAL_S: '1',
  ENFORCE_VERIFIED_DOMAINS: 'true',
  DOMAIN_MX_HOST: 'mx.petrel.e2e.test',
}));

type Record_ = {
  record: string;
  name: string;
  type: string;
  value: string;
  priority?: number;
  status: string;
};

/** Publish what the API asks for, as the domain's owner would at their DNS provider. */
function publish(records: readonly Record_[]): void {
  for (const r of records) {
    dns.add({
      name: r.name,
      type: r.type as 'TXT' | 'MX',
      value: r.value,
      ...(r.priority !== undefined && { priority: r.priority }),
    });
  }
}

const send = (resend: Resend, from: string) =>
  resend.emails.send({ from, to: 'someone@example.test', subject: 'hi', text: 'hello' });

describe('domains', () => {
  it('create → publish → verify → verified; refuses the from until then; a removed record fails sending at the next check', async () => {
    const created = await stack.resend.domains.create({
      name: 'Acme.e2e.test',
      customReturnPath: 'bounce',
      capabilities: { receiving: 'enabled' },
      tls: 'enforced',
      openTracking: true,
    });
    expect(created.error).toBeNull();
    const domain = created.data!;
    expect(domain).toMatchObject({
      name: 'acme.e2e.test',
      status: 'not_started',
      region: 'us-east-1',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
      open_tracking: true,
      click_tracking: false,
    });
    const records = domain.records as Record_[];
    expect(records.map((r) => [r.record, r.type, r.name, r.status])).toEqual([
      ['DKIM', 'TXT', 'petrel._domainkey.acme.e2e.test', 'not_started'],
      ['SPF', 'MX', 'bounce.acme.e2e.test', 'not_started'],
      ['SPF', 'TXT', 'bounce.acme.e2e.test', 'not_started'],
      ['Receiving', 'MX', 'acme.e2e.test', 'not_started'],
    ]);
    expect(records[0]!.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]{300,}={0,2}$/);
    expect(records[1]).toMatchObject({ value: 'mx.petrel.e2e.test', priority: 10 });
    expect(JSON.stringify(domain)).not.toMatch(/PRIVATE KEY|private/i);

    // not verified yet: Resend's 403
    const refused = await send(stack.resend, 'Acme <news@acme.e2e.test>');
    expect(refused.error).toMatchObject({
      statusCode: 403,
      name: 'validation_error',
      message: expect.stringMatching(/^The acme\.e2e\.test domain is not verified/),
    });

    publish(records);
    expect((await stack.resend.domains.verify(domain.id)).data).toEqual({ object: 'domain', id: domain.id });
    const verified = (await stack.resend.domains.get(domain.id)).data!;
    expect(verified).toMatchObject({ object: 'domain', id: domain.id, status: 'verified' });
    expect(verified.records.map((r) => r.status)).toEqual(['verified', 'verified', 'verified', 'verified']);
    expect((await send(stack.resend, 'Acme <news@ACME.e2e.test>')).error).toBeNull();

    const listed = (await stack.resend.domains.list()).data!;
    expect(listed.object).toBe('list');
    expect(listed.data.find((d) => d.id === domain.id)).toMatchObject({
      name: 'acme.e2e.test',
      status: 'verified',
    });

    expect(
      (await stack.resend.domains.update({ id: domain.id, clickTracking: true, tls: 'opportunistic' })).data,
    ).toEqual({
      object: 'domain',
      id: domain.id,
    });
    expect((await stack.resend.domains.get(domain.id)).data).toMatchObject({ click_tracking: true });

    // the owner removes the DKIM record: the scheduler's next check fails sending (receiving
    // still works: partially verified), and the from is refused again
    dns.remove('petrel._domainkey.acme.e2e.test');
    const partial = await waitUntil(
      async () => {
        const d = (await stack.resend.domains.get(domain.id)).data;
        return d?.status === 'partially_verified' ? d : null;
      },
      { timeoutMs: 15_000, message: 'the periodic check to fail the DKIM record' },
    );
    expect(partial.records.map((r) => r.status)).toEqual(['failed', 'verified', 'verified', 'verified']);
    // an API process reuses a verified lookup for up to a second (SENDING_DOMAIN_REUSE_MS)
    await waitUntil(async () => (await send(stack.resend, 'news@acme.e2e.test')).error?.statusCode === 403, {
      timeoutMs: 5_000,
      message: 'the from to be refused again',
    });

    const events = await stack.teamEvents('domain.');
    const mine = events
      .filter((e) => (e.data as { id?: string }).id === domain.id)
      .map((e) => [e.type, e.data.status]);
    // (a periodic check may also have found the records missing before they were published)
    expect(mine[0]).toEqual(['domain.created', 'not_started']);
    expect(mine).toContainEqual(['domain.updated', 'verified']);
    expect(mine.at(-1)).toEqual(['domain.updated', 'partially_verified']);
    expect(events.at(-1)!.data).toMatchObject({
      name: 'acme.e2e.test',
      region: 'us-east-1',
      records: expect.any(Array),
    });

    expect((await stack.resend.domains.remove(domain.id)).data).toEqual({
      object: 'domain',
      id: domain.id,
      deleted: true,
    });
    expect((await stack.resend.domains.get(domain.id)).error).toMatchObject({
      statusCode: 404,
      name: 'not_found',
    });
    expect((await stack.teamEvents('domain.deleted')).map((e) => e.data.id)).toContain(domain.id);
  });

  it('a sending key restricted to a domain sends from that domain only', async () => {
    const mine = (await stack.resend.domains.create({ name: 'keyed.e2e.test' })).data!;
    const other = (await stack.resend.domains.create({ name: 'other.e2e.test' })).data!;
    publish(mine.records as Record_[]);
    publish(other.records as Record_[]);
    await stack.resend.domains.verify(mine.id);
    await stack.resend.domains.verify(other.id);

    const bad = await stack.http('/api-keys', {
      method: 'POST',
      body: JSON.stringify({
        name: 'k',
        permission: 'sending_access',
        domain_id: '0190a000-0000-7000-8000-000000000000',
      }),
    });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('domain_id: no domain with this id exists');

    const key = await stack.resend.apiKeys.create({
      name: 'keyed',
      permission: 'sending_access',
      domain_id: mine.id,
    });
    expect(key.error).toBeNull();
    const restricted = new Resend(key.data!.token, { baseUrl: stack.baseUrl });
    expect((await send(restricted, 'a@keyed.e2e.test')).error).toBeNull();
    expect((await send(restricted, 'a@other.e2e.test')).error).toMatchObject({
      statusCode: 403,
      name: 'validation_error',
      message: expect.stringContaining('only send from the domain'),
    });
    // the same domain through the team's full-access key: fine
    expect((await send(stack.resend, 'a@other.e2e.test')).error).toBeNull();
  });

  it('validates the body and pages the list', async () => {
    const bad = await stack.http('/domains', {
      method: 'POST',
      body: JSON.stringify({ name: 'not a domain' }),
    });
    expect(bad).toMatchObject({
      status: 422,
      body: { name: 'validation_error', message: 'name: must be a domain name such as example.com' },
    });
    const dup = await stack.resend.domains.create({ name: 'keyed.e2e.test' });
    expect(dup.error).toMatchObject({ statusCode: 403, name: 'validation_error' });
    const page = (await stack.resend.domains.list({ limit: 1 })).data!;
    expect(page.data).toHaveLength(1);
    expect(page.has_more).toBe(true);
  });
});
