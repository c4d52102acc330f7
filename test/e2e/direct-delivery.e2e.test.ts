/**
 * Direct delivery (DELIVERY_MODE=direct) through the official `resend` SDK and the whole stack:
 * the worker looks the recipient domains up in a local authoritative DNS server and delivers to
 * their MX hosts on DIRECT_SMTP_PORT. The preferred MX (127.0.0.2) is down, the next one
 * (127.0.0.3, a real sink) takes the mail; a domain with a null MX (RFC 7505) bounces, alone or
 * next to a deliverable one; a host answering 421 gets a lower concurrency limit and every
 * email still arrives once, through the retry ladder; the per-destination metrics show it; a
 * from-domain whose `tls` is `enforced` (set through the SDK) is never sent to an MX without
 * STARTTLS: it is deferred, then bounced as Temporary, with the reason.
 */
import { describe, expect, it } from 'vitest';
import { fileDirectStack, lastEvent, sendPlain } from './helpers.js';

const { stack, dns, mx } = fileDirectStack((zone) => {
  zone.add({ name: 'direct.e2e.test', type: 'MX', value: 'mx1.direct.e2e.test', priority: 10 });
  zone.add({ name: 'direct.e2e.test', type: 'MX', value: 'mx2.direct.e2e.test', priority: 20 });
  zone.add({ name: 'mx1.direct.e2e.test', type: 'A', value: '127.0.0.2' });
  zone.add({ name: 'mx2.direct.e2e.test', type: 'A', value: '127.0.0.3' });
  zone.add({ name: 'nomail.e2e.test', type: 'MX', value: '.', priority: 0 });
});

describe('direct delivery', () => {
  it('delivers to the next MX when the preferred one is down, one transaction per domain', async () => {
    const id = await sendPlain(
      stack,
      'Petrel <sender@petrel.e2e.test>',
      ['someone@direct.e2e.test', 'nobody@nomail.e2e.test'],
      'direct',
    );

    const [received] = await mx.waitFor(1, 15_000);
    expect(received?.envelope.to).toEqual(['someone@direct.e2e.test']);
    expect(received?.parsed.subject).toBe('direct');
    // the null-MX recipient is refused permanently while the other one got the email
    await lastEvent(stack, id, 'delivered');
    expect(stack.sink.messages).toHaveLength(0);

    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(
      /petrel_direct_concurrency_limit\{[^}]*destination="mx1\.direct\.e2e\.test"[^}]*\} 5/,
    );
    expect(metrics).toMatch(
      /petrel_direct_deferrals_total\{[^}]*destination="mx1\.direct\.e2e\.test"[^}]*reason="connection"[^}]*\} 1/,
    );
  });

  it('halves the concurrency to a host answering 421 and delivers every email once, after retries', async () => {
    // a host of its own: a new pool, so the connections (and the refusals) are new
    dns.add({ name: 'busy.e2e.test', type: 'MX', value: 'mx.busy.e2e.test', priority: 10 });
    dns.add({ name: 'mx.busy.e2e.test', type: 'A', value: '127.0.0.3' });
    mx.clear();
    // fewer refusals than attempts per email (RETRY_SCHEDULE_S has 3 retries): none may bounce
    mx.rejectConnections(3, { code: 421, message: '4.7.0 Too many connections, slow down' });
    const to = Array.from({ length: 5 }, (_, i) => `user${i}@busy.e2e.test`);
    const ids = await Promise.all(
      to.map((address) => sendPlain(stack, 'sender@petrel.e2e.test', address, `busy ${address}`)),
    );
    for (const id of ids) await lastEvent(stack, id, 'delivered');
    expect(mx.messages.map((m) => m.envelope.to.join()).sort()).toEqual(to);

    const metrics = await (await fetch(stack.metricsUrl)).text();
    const limit = /petrel_direct_concurrency_limit\{[^}]*destination="mx\.busy\.e2e\.test"[^}]*\} (\d+)/.exec(
      metrics,
    );
    expect(Number(limit?.[1])).toBeLessThanOrEqual(5);
    expect(metrics).toMatch(
      /petrel_direct_deferrals_total\{[^}]*destination="mx\.busy\.e2e\.test"[^}]*reason="throttled"[^}]*\} [1-3]/,
    );
  });

  it('defers, then bounces, an email whose from-domain enforces TLS when the MX offers no STARTTLS', async () => {
    const created = await stack.resend.domains.create({ name: 'strict.e2e.test' });
    expect(created.error).toBeNull();
    const updated = await stack.resend.domains.update({ id: created.data!.id, tls: 'enforced' });
    expect(updated.error).toBeNull();
    mx.clear();

    const id = await sendPlain(stack, 'sender@strict.e2e.test', 'someone@direct.e2e.test', 'tls only');
    // the short retry ladder of the stack (3 retries) runs out: a Temporary bounce with the reason
    await lastEvent(stack, id, 'bounced');
    expect(mx.messages).toHaveLength(0);
    const bounced = (await stack.teamEvents('email.bounced')).find(
      (e) => (e.data as { email_id?: string }).email_id === id,
    );
    expect(bounced?.data).toMatchObject({ bounce: { type: 'Temporary' } });
    expect(JSON.stringify(bounced?.data)).toContain(
      'TLS is enforced for this email and mx2.direct.e2e.test [127.0.0.3] did not complete STARTTLS',
    );
  });

  it('bounces an email to a domain that takes no mail (null MX)', async () => {
    const id = await sendPlain(stack, 'sender@petrel.e2e.test', 'someone.else@nomail.e2e.test', 'nowhere');
    await lastEvent(stack, id, 'bounced');
  });
});
