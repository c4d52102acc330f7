/**
 * Simulator e2e: Resend's test addresses (`delivered@`, `bounced@`, `complained@`,
 * `suppressed@resend.dev`, each with a `+label`), Petrel's `delayed@` / `tempfail@`, and the same
 * local parts on SIMULATOR_DOMAIN, sent through the official SDK against the whole stack: each
 * ends in the state a real reply would give, with the same events on GET /emails/:id/events and
 * on a real webhook receiver (signatures verified by the SDK), the suppression list updated as
 * for a real bounce or complaint — and the SMTP sink never sees a connection for them.
 *
 * Soft-bounce suppression (docs/operations.md, "Soft-bounce suppression"), here after 2 emails in
 * a row over any span: `tempfail@`'s Temporary bounces, and a real address the SMTP sink refuses
 * with a 451 while it takes the message for the other recipient (a final 4xx), suppress the
 * address with origin `bounce`; a delivery in between starts the count again.
 */
import { describe, expect, it } from 'vitest';
import { waitUntil } from '@petrel/testing';
import { createdId, fileStack, lastEvent } from './helpers.js';
import { WEBHOOK_TEST_ENV, fileWebhookEndpoint } from './scenarios/webhooks.js';

const SIMULATOR_DOMAIN = 'sim.petrel.test';
/** SOFT_BOUNCE_SUPPRESS_EMAILS of this stack (SOFT_BOUNCE_SUPPRESS_DAYS 0: any span). */
const SOFT_BOUNCES = 2;
/** A real address the sink refuses with a 451, accepts on its next RCPT, then refuses for good. */
const FLAKY = `flaky-${Date.now()}@people.test`;
const BOUNCE_REPLY = '550 5.1.1 The email account that you tried to reach does not exist';

const stack = fileStack({
  env: {
    ...WEBHOOK_TEST_ENV,
    SIMULATOR_DOMAIN,
    SOFT_BOUNCE_SUPPRESS_EMAILS: String(SOFT_BOUNCES),
    SOFT_BOUNCE_SUPPRESS_DAYS: '0',
  },
  plan: { [FLAKY]: [{ at: 'rcpt', code: 451 }, 'accept', { at: 'rcpt', code: 451 }] },
});
const endpoint = fileWebhookEndpoint(stack, [
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.failed',
  'email.suppressed',
]);

let seq = 0;
/** A fresh +label, so no test's suppression touches another's address. */
const label = (local: string, domain = 'resend.dev'): string => `${local}+t${++seq}-${Date.now()}@${domain}`;

const send = (to: string[]) =>
  createdId(
    stack.resend.emails.send({
      from: 'Acme <sender@acme.test>',
      to,
      subject: 'Simulated',
      html: '<p>hi</p>',
    }),
  );

async function timeline(id: string): Promise<{ type: string; data: Record<string, any> }[]> {
  const r = await stack.http(`/emails/${id}/events`);
  expect(r.status).toBe(200);
  return r.body.data;
}

/** The webhook deliveries about `id`, each verified with the SDK's helper (a forged one throws), once `count` arrived. */
async function webhookEvents(
  id: string,
  count: number,
): Promise<{ type: string; data: Record<string, any> }[]> {
  const about = () =>
    endpoint.delivered().filter((e) => e.data.email_id === id) as {
      type: string;
      data: Record<string, any>;
    }[];
  return waitUntil(() => (about().length >= count ? about() : null), {
    timeoutMs: 20_000,
    message: `${count} webhook deliveries about ${id}`,
  });
}

const types = (events: { type: string }[]) => events.map((e) => e.type);
/** The types of the email's timeline, once its last event is `last`. */
async function typesOnce(id: string, last: string): Promise<string[]> {
  await lastEvent(stack, id, last);
  return types(await timeline(id));
}
const sorted = (list: string[]) => [...list].sort();

describe('simulated addresses (SDK)', () => {
  it('delivered+label@resend.dev: sent + delivered, on the API and the webhook', async () => {
    const to = label('delivered');
    const id = await send([to]);
    expect(await typesOnce(id, 'delivered')).toEqual(['email.queued', 'email.sent', 'email.delivered']);
    expect(sorted(types(await webhookEvents(id, 2)))).toEqual(['email.delivered', 'email.sent']);
    expect((await stack.resend.suppressions.get(to)).error).toMatchObject({ statusCode: 404 });
  });

  it('bounced@resend.dev: a Permanent bounce with a 5.1.1 reason, and the address suppressed (bounce)', async () => {
    const to = label('Bounced');
    const id = await send([to]);
    await lastEvent(stack, id, 'bounced');
    const bounced = (await timeline(id)).find((e) => e.type === 'email.bounced')!;
    expect(bounced.data.bounce).toEqual({
      type: 'Permanent',
      subType: 'General',
      message: BOUNCE_REPLY,
      diagnosticCode: [`smtp; ${BOUNCE_REPLY}`],
    });
    const hook = await webhookEvents(id, 1);
    expect(hook.find((e) => e.type === 'email.bounced')!.data.bounce.type).toBe('Permanent');
    const suppression = await stack.resend.suppressions.get(to);
    expect(suppression.data).toMatchObject({ origin: 'bounce', source_id: id });

    // the next email to it is left out, as for any bounced address
    const next = await send([to]);
    expect(await typesOnce(next, 'failed')).toEqual(['email.queued', 'email.suppressed', 'email.failed']);
  });

  it('complained@: delivered, then complained, and the address suppressed (complaint)', async () => {
    const to = label('complained');
    const id = await send([to]);
    expect(await typesOnce(id, 'complained')).toEqual([
      'email.queued',
      'email.sent',
      'email.delivered',
      'email.complained',
    ]);
    expect(sorted(types(await webhookEvents(id, 3)))).toEqual([
      'email.complained',
      'email.delivered',
      'email.sent',
    ]);
    expect((await stack.resend.suppressions.get(to)).data).toMatchObject({
      origin: 'complaint',
      source_id: id,
    });
  });

  it('suppressed@: left out as a suppressed address is (email.suppressed, then email.failed)', async () => {
    const id = await send([label('suppressed')]);
    expect(await typesOnce(id, 'failed')).toEqual(['email.queued', 'email.suppressed', 'email.failed']);
    expect(sorted(types(await webhookEvents(id, 2)))).toEqual(['email.failed', 'email.suppressed']);
  });

  it('delayed@: delivery_delayed on the first attempt, delivered on the retry', async () => {
    const id = await send([label('delayed')]);
    expect(await typesOnce(id, 'delivered')).toEqual([
      'email.queued',
      'email.delivery_delayed',
      'email.sent',
      'email.delivered',
    ]);
  });

  it('tempfail@: delayed on every attempt, then a Temporary bounce (RetriesExhausted), nobody suppressed', async () => {
    const to = label('tempfail');
    const id = await send([to]);
    await lastEvent(stack, id, 'bounced');
    const events = await timeline(id);
    expect(types(events)).toEqual(['email.queued', 'email.delivery_delayed', 'email.bounced']);
    expect(events[2]!.data.bounce).toMatchObject({ type: 'Temporary', subType: 'RetriesExhausted' });
    expect((await stack.resend.suppressions.get(to)).error).toMatchObject({ statusCode: 404 });
  });

  it('the configured SIMULATOR_DOMAIN simulates the same local parts', async () => {
    const delivered = await send([label('delivered', SIMULATOR_DOMAIN)]);
    const bounced = await send([label('bounced', SIMULATOR_DOMAIN.toUpperCase())]);
    await lastEvent(stack, delivered, 'delivered');
    await lastEvent(stack, bounced, 'bounced');
  });

  it('none of them opened an SMTP connection', async () => {
    await stack.drained();
    expect(stack.sink.connectionCount()).toBe(0);
    expect(stack.sink.messages).toHaveLength(0);
  });
});

describe('mixed and lookalike recipients (SDK)', () => {
  it('a real recipient gets the message; the test address stays out of the envelope, its outcome listed', async () => {
    const bounced = label('bounced');
    const id = await send(['ada@example.test', bounced]);
    await lastEvent(stack, id, 'delivered');
    const [message] = await stack.sink.waitFor(1);
    expect(message!.envelope.to).toEqual(['ada@example.test']);
    // the counter counts: the one real recipient took a connection
    expect(stack.sink.connectionCount()).toBeGreaterThan(0);
    const got = await stack.http(`/emails/${id}`);
    expect(got.body.recipients.map((r: { email: string; status: string }) => [r.email, r.status])).toEqual([
      ['ada@example.test', 'delivered'],
      [bounced, 'bounced'],
    ]);
    expect((await stack.resend.suppressions.get(bounced)).data).toMatchObject({ origin: 'bounce' });
  });

  it('a lookalike domain is real mail: it reaches the SMTP sink', async () => {
    const id = await send(['delivered@resend.dev.evil.test']);
    await lastEvent(stack, id, 'delivered');
    const [, message] = await stack.sink.waitFor(2);
    expect(message!.envelope.to).toEqual(['delivered@resend.dev.evil.test']);
  });
});

describe('soft-bounce suppression (SDK)', () => {
  it('tempfail@: a Temporary bounce on 2 emails in a row suppresses the address (origin bounce)', async () => {
    const to = label('tempfail');
    const first = await send([to]);
    await lastEvent(stack, first, 'bounced');
    // its job has ended, the soft-bounces stage (after the record) included
    await stack.settled([first]);
    // one soft-bounced email is not a streak yet
    expect((await stack.resend.suppressions.get(to)).error).toMatchObject({ statusCode: 404 });
    const second = await send([to]);
    await lastEvent(stack, second, 'bounced');
    const suppression = await waitUntil(async () => (await stack.resend.suppressions.get(to)).data ?? null, {
      timeoutMs: 10_000,
      message: `${to} suppressed`,
    });
    expect(suppression).toMatchObject({ email: to, origin: 'bounce', source_id: second });
    const listed = await stack.resend.suppressions.list({ origin: 'bounce' });
    expect(listed.error).toBeNull();
    expect((listed.data?.data ?? []).map((s: { email: string }) => s.email)).toContain(to);

    // the next email to it is left out, as for any suppressed address
    const next = await send([to]);
    expect(await typesOnce(next, 'failed')).toEqual(['email.queued', 'email.suppressed', 'email.failed']);
  });

  it('a 4xx for one recipient while the other got it is final and counts; a delivery in between resets', async () => {
    const other = () => label('delivered');
    // 1: the sink refuses FLAKY with a 451 (final: the message went to the other) → streak 1
    const one = await send([other(), FLAKY]);
    await lastEvent(stack, one, 'delivered');
    // each job ends (its streak written, after the record) before the next email is sent
    await stack.settled([one]);
    const got = await stack.http(`/emails/${one}`);
    expect(got.body.recipients.find((r: { email: string }) => r.email === FLAKY)).toMatchObject({
      status: 'bounced',
    });
    // 2: delivered to FLAKY → the streak ends
    const two = await send([other(), FLAKY]);
    await lastEvent(stack, two, 'delivered');
    await stack.settled([two]);
    expect(stack.sink.messages.some((m) => m.envelope.to.includes(FLAKY))).toBe(true);
    // 3: refused again → streak 1 again, not suppressed (without the reset it would be 2)
    const three = await send([other(), FLAKY]);
    await lastEvent(stack, three, 'delivered');
    await stack.settled([three]);
    expect((await stack.resend.suppressions.get(FLAKY)).error).toMatchObject({ statusCode: 404 });
    // 4: refused again → 2 in a row: suppressed, this email as the source
    const four = await send([other(), FLAKY]);
    await lastEvent(stack, four, 'delivered');
    const suppression = await waitUntil(
      async () => (await stack.resend.suppressions.get(FLAKY)).data ?? null,
      {
        timeoutMs: 10_000,
        message: `${FLAKY} suppressed`,
      },
    );
    expect(suppression).toMatchObject({ origin: 'bounce', source_id: four });
  });
});

describe('REFUSE_NON_MAIL_DOMAINS=true (SDK)', () => {
  // a stack of its own: every other e2e stack sends to .test domains on purpose
  const strict = fileStack({ env: { SIMULATOR_DOMAIN, REFUSE_NON_MAIL_DOMAINS: 'true' } });

  const sendTo = (fields: { to: string[]; cc?: string[]; bcc?: string[] }) =>
    strict.resend.emails.send({
      from: 'Acme <sender@acme.test>',
      subject: 'Reserved',
      html: '<p>hi</p>',
      ...fields,
    });

  it('refuses a recipient at a reserved domain with a 422 naming the field; nothing is sent', async () => {
    const refused = await sendTo({ to: ['ada@example.com'] });
    expect(refused.data).toBeNull();
    expect(refused.error).toMatchObject({
      statusCode: 422,
      name: 'validation_error',
      message: expect.stringMatching(
        /^to: ada@example\.com is at a domain reserved for tests and documentation/,
      ),
    });
    const inBcc = await sendTo({ to: ['delivered@resend.dev'], bcc: ['qa@staging.test'] });
    expect(inBcc.error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^bcc: qa@staging\.test /),
    });
    // a batch names the email
    const batch = await strict.resend.batch.send([
      { from: 'a@acme.test', to: ['delivered@resend.dev'], subject: 's', html: 'x' },
      { from: 'a@acme.test', to: ['x@nowhere.invalid'], subject: 's', html: 'x' },
    ]);
    expect(batch.error).toMatchObject({
      statusCode: 422,
      message: expect.stringMatching(/^emails\[1\]\.to: /),
    });
    await strict.drained();
    expect(strict.sink.connectionCount()).toBe(0);
  });

  it('sends to resend.dev and to SIMULATOR_DOMAIN, even under .test', async () => {
    const { data, error } = await sendTo({ to: ['delivered@resend.dev', `delivered+x@${SIMULATOR_DOMAIN}`] });
    expect(error).toBeNull();
    await lastEvent(strict, data!.id, 'delivered');
  });
});
