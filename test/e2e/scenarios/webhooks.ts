/**
 * Webhooks end to end with the official `resend` SDK and real HTTP receivers: endpoints created
 * with `resend.webhooks.create`, events of emails sent through the SDK and of contacts, topics
 * and suppressions delivered signed (each delivery verified by `resend.webhooks.verify` and by
 * `svix`), the retry schedule and its stable message id (R14), endpoint failure modes — 410
 * disables, a 302 is not followed (R15) — secret rotation, replay, the events and attempts API,
 * a receiver down then back, and a slow endpoint beside a fast one.
 *
 * Shared by the single-node suite and the Redis Cluster suite. The stack runs with
 * {@link WEBHOOK_TEST_ENV}: a compressed retry schedule so the whole file takes seconds.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook as SvixWebhook } from 'svix';
import { webhookDeliveryJobId } from '@petrel/contracts';
import { WebhookDeliveryQueue } from '@petrel/queue';
import { Keys, createRedis } from '@petrel/store';
import {
  startHttpReceiver,
  waitUntil,
  type HttpReceiver,
  type RecordedRequest,
  type ScriptedResponse,
} from '@petrel/testing';
import { PENDING_JOB_STATES, type Stack } from '../helpers.js';

/** 6 attempts, 0.2 s, 0.4 s … 1 s apart (1–5 s × 0.2): 3 s in all; a 3 s attempt timeout (15 s × 0.2). */
export const WEBHOOK_TEST_ENV: Record<string, string> = {
  WEBHOOK_RETRY_SCHEDULE: '0,1,2,3,4,5',
  WEBHOOK_RETRY_TIME_SCALE: '0.2',
};

type Event = { type: string; created_at: string; data: Record<string, unknown> };

const svixHeaders = (r: RecordedRequest) => ({
  'svix-id': String(r.headers['svix-id']),
  'svix-timestamp': String(r.headers['svix-timestamp']),
  'svix-signature': String(r.headers['svix-signature']),
});

/** A delivery verified with the SDK's helper (`resend.webhooks.verify`); throws when forged. */
export function sdkVerified(stack: Pick<Stack, 'resend'>, r: RecordedRequest, secret: string): Event {
  return stack.resend.webhooks.verify({
    payload: r.body,
    headers: {
      id: String(r.headers['svix-id']),
      timestamp: String(r.headers['svix-timestamp']),
      signature: String(r.headers['svix-signature']),
    },
    webhookSecret: secret,
  }) as unknown as Event;
}

/**
 * A webhook endpoint on a local receiver, subscribed to `events` on the stack's team before the
 * file's tests (through the raw API: the SDK types only Resend's event names, not Petrel's
 * `broadcast.paused`) and stopped after them. `delivered()`: every delivery so far, each
 * verified with the SDK's helper (a forged one throws).
 */
export function fileWebhookEndpoint(stack: Stack, events: string[]): { delivered(): Event[] } {
  let rx: HttpReceiver | undefined;
  let secret = '';
  beforeAll(async () => {
    rx = await startHttpReceiver();
    const hook = await stack.http('/webhooks', {
      method: 'POST',
      body: JSON.stringify({ endpoint: rx.url, events }),
    });
    expect(hook.status).toBe(201);
    secret = hook.body.signing_secret;
  });
  afterAll(async () => {
    await rx?.stop();
  });
  return { delivered: () => rx!.requests.map((r) => sdkVerified(stack, r, secret)) };
}

export function webhookScenarios(current: () => Stack): void {
  describe('webhooks', () => webhookTests(current));
}

function webhookTests(current: () => Stack): void {
  let stack: Stack;
  const receivers: HttpReceiver[] = [];
  const webhooks: string[] = [];
  let n = 0;
  const addr = (name: string) => `${name}.${++n}.${Date.now()}@hooks.test`;

  beforeEach(() => {
    stack = current();
  });
  afterEach(async () => {
    // each scenario's endpoints go away with it, so the next one sees only its own deliveries
    for (const id of webhooks.splice(0)) await stack.resend.webhooks.remove(id);
    for (const r of receivers.splice(0)) await r.stop();
  });

  async function receiver(
    respond?: (req: RecordedRequest, n: number) => ScriptedResponse,
  ): Promise<HttpReceiver> {
    const r = await startHttpReceiver(respond ? { respond } : {});
    receivers.push(r);
    return r;
  }

  async function webhook(endpoint: string, events: string[]): Promise<{ id: string; secret: string }> {
    const { data, error } = await stack.resend.webhooks.create({ endpoint, events: events as never });
    expect(error).toBeNull();
    expect(data!.signing_secret).toMatch(/^whsec_/);
    webhooks.push(data!.id);
    return { id: data!.id, secret: data!.signing_secret };
  }

  /** Verifies a delivery with the SDK's helper and with svix; returns the parsed event. */
  function verified(r: RecordedRequest, secret: string): Event {
    const event = sdkVerified(stack, r, secret);
    expect(() => new SvixWebhook(secret).verify(r.body, svixHeaders(r))).not.toThrow();
    expect(r.headers['webhook-id']).toBe(r.headers['svix-id']);
    expect(r.headers['webhook-signature']).toBe(r.headers['svix-signature']);
    expect(r.headers['content-type']).toBe('application/json');
    return event;
  }

  async function contact(email: string): Promise<void> {
    const { error } = await stack.resend.contacts.create({ email });
    expect(error).toBeNull();
  }

  /**
   * The attempts (newest first) of the webhook's only event, once the event is `status` and its
   * delivery is over ({@link deliveryOver}): the receiver has every request it will ever get.
   */
  async function finalAttempts(webhookId: string, status: 'success' | 'failed') {
    const eventId = (await stack.resend.webhooks.events.list({ webhookId })).data!.data[0]!.id;
    await waitUntil(
      async () => (await stack.resend.webhooks.events.get({ webhookId, eventId })).data!.status === status,
      { message: `event ${eventId} ${status}` },
    );
    await deliveryOver(webhookId, eventId);
    return (await stack.resend.webhooks.events.attempts.list({ webhookId, eventId })).data!.data;
  }

  /**
   * Resolves once the delivery of `eventId` to `webhookId` can make no attempt any more: its one
   * job (a retry moves it back to delayed) is over — completed, which BullMQ removes, or failed.
   * The receiver records a request before it answers and the dispatcher ends the job only after
   * the answer, so by then every attempt the stack will ever make is in the receiver: what a
   * "nothing more comes" check waits for.
   */
  async function deliveryOver(webhookId: string, eventId: string): Promise<void> {
    const redis = createRedis(stack.redis.url);
    const deliveries = new WebhookDeliveryQueue(redis, { prefix: new Keys(stack.prefix).bullPrefix() });
    const jobId = webhookDeliveryJobId(eventId, webhookId);
    try {
      await waitUntil(
        async () => !new Set<string>(PENDING_JOB_STATES).has(await deliveries.queue.getJobState(jobId)),
        { message: `the delivery job ${jobId} to end` },
      );
    } finally {
      await deliveries.close();
      await redis.quit();
    }
  }

  /** The deliveries of contact.created for `email`. */
  const forContact = (r: HttpReceiver, email: string) =>
    r.requests.filter((q) => q.body.includes(`"email":"${email}"`));

  it('an email sent with the SDK: email.sent and email.delivered arrive signed; the events and attempts API list them', async () => {
    const rx = await receiver();
    const { id, secret } = await webhook(`${rx.url}/hook`, ['email.sent', 'email.delivered']);
    const sent = await stack.resend.emails.send({
      from: 'Acme <hooks@acme.test>',
      to: [addr('to')],
      subject: 'Webhook me',
      html: '<p>hi</p>',
      tags: [{ name: 'kind', value: 'welcome' }],
    });
    expect(sent.error).toBeNull();
    const emailId = sent.data!.id;
    const requests = await waitUntil(
      () => {
        const mine = rx.requests.filter((r) => r.body.includes(emailId));
        return mine.length >= 2 ? mine : undefined;
      },
      { timeoutMs: 20_000, message: 'email.sent and email.delivered' },
    );
    const events = requests.map((r) => verified(r, secret));
    expect(events.map((e) => e.type).sort()).toEqual(['email.delivered', 'email.sent']);
    for (const e of events) {
      expect(e.data).toMatchObject({ email_id: emailId, subject: 'Webhook me', tags: { kind: 'welcome' } });
      expect(e.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    }
    expect(requests[0]!.path).toBe('/hook');
    expect(requests[0]!.method).toBe('POST');

    const list = await stack.resend.webhooks.events.list({ webhookId: id });
    expect(list.error).toBeNull();
    expect(list.data!.object).toBe('list');
    await waitUntil(async () => {
      const l = await stack.resend.webhooks.events.list({ webhookId: id });
      return l.data!.data.filter((e) => e.status === 'success').length === 2;
    });
    const listed = (await stack.resend.webhooks.events.list({ webhookId: id })).data!.data;
    expect(listed.map((e) => e.type).sort()).toEqual(['email.delivered', 'email.sent']);
    const one = await stack.resend.webhooks.events.get({ webhookId: id, eventId: listed[0]!.id });
    expect(one.error).toBeNull();
    expect(one.data).toMatchObject({
      object: 'webhook_event',
      id: listed[0]!.id,
      type: listed[0]!.type,
      status: 'success',
      next_attempt_at: null,
      payload: { type: listed[0]!.type, data: { email_id: emailId } },
    });
    const attempts = await stack.resend.webhooks.events.attempts.list({
      webhookId: id,
      eventId: listed[0]!.id,
    });
    expect(attempts.error).toBeNull();
    expect(attempts.data!.data).toEqual([
      { id: expect.any(String), http_status_code: 200, response: 'ok', sent_at: expect.any(String) },
    ]);
  });

  it('R14: 500 twice then 200 → three attempts, one svix-id, fresh timestamps, each verifying', async () => {
    const rx = await receiver((_req, i) =>
      i <= 2 ? { status: 500, body: 'boom' } : { status: 200, body: 'ok' },
    );
    const { id, secret } = await webhook(rx.url, ['contact.created']);
    const email = addr('retry');
    await contact(email);
    const got = await rx.waitFor(3, 15_000);
    expect(got).toHaveLength(3);
    expect(new Set(got.map((r) => r.headers['svix-id'])).size).toBe(1);
    for (const r of got) expect(verified(r, secret).data).toMatchObject({ email });
    // the gaps follow the schedule (0.2 s then 0.4 s scaled), not the receiver's pace
    expect(got[1]!.receivedAt - got[0]!.receivedAt).toBeGreaterThanOrEqual(150);
    expect(got[2]!.receivedAt - got[1]!.receivedAt).toBeGreaterThanOrEqual(350);

    const attempts = await finalAttempts(id, 'success');
    expect(attempts.map((a) => a.http_status_code)).toEqual([200, 500, 500]);
    expect(attempts[1]!.response).toBe('boom');
    // Fresh timestamps: each delivery is signed with its own attempt's start (the stack runs in
    // this process, on this clock), which comes after the previous delivery was received.
    const sentAt = attempts.map((a) => Date.parse(a.sent_at)).reverse();
    for (let i = 0; i < 3; i++) {
      expect(Number(got[i]!.headers['svix-timestamp'])).toBe(Math.floor(sentAt[i]! / 1000));
      expect(got[i]!.receivedAt).toBeGreaterThanOrEqual(sentAt[i]!);
      if (i > 0) expect(sentAt[i]!).toBeGreaterThanOrEqual(got[i - 1]!.receivedAt);
    }
    // nothing more comes: the delivery is over (finalAttempts), every attempt it made is in
    expect(rx.requests).toHaveLength(3);
  });

  it('R15: 410 disables the endpoint after one attempt; later events are not sent to it', async () => {
    const rx = await receiver(() => ({ status: 410, body: 'gone' }));
    const { id } = await webhook(rx.url, ['contact.created']);
    await contact(addr('gone'));
    await rx.waitFor(1);
    await waitUntil(async () => (await stack.resend.webhooks.get(id)).data!.status === 'disabled', {
      message: 'the endpoint to be disabled',
    });
    await contact(addr('after'));
    const other = await receiver();
    const ok = await webhook(other.url, ['contact.created']);
    const email = addr('witness');
    await contact(email);
    await waitUntil(() => forContact(other, email).length === 1);
    expect(rx.requests).toHaveLength(1);
    const metrics = await (await fetch(stack.metricsUrl)).text();
    expect(metrics).toMatch(/petrel_webhook_endpoints_disabled_total\{[^}]*reason="gone"[^}]*\} [1-9]/);
    // enabling it again is the user's call
    expect((await stack.resend.webhooks.update(id, { status: 'enabled' })).error).toBeNull();
    expect((await stack.resend.webhooks.get(id)).data!.status).toBe('enabled');
    await stack.resend.webhooks.remove(ok.id);
  });

  it('R15: a receiver answering `webhook-delivery: abort-message` gets no further attempt', async () => {
    const rx = await receiver(() => ({ status: 500, headers: { 'webhook-delivery': 'abort-message' } }));
    const { id } = await webhook(rx.url, ['contact.created']);
    await contact(addr('abort'));
    await rx.waitFor(1);
    const attempts = await finalAttempts(id, 'failed');
    expect(attempts.map((a) => a.http_status_code)).toEqual([500]);
    expect(rx.requests).toHaveLength(1);
    expect((await stack.resend.webhooks.get(id)).data!.status).toBe('enabled');
  });

  it('R15: a 302 is a failed attempt and is never followed (the target sees 0 requests)', async () => {
    const target = await receiver();
    const rx = await receiver(() => ({ status: 302, headers: { location: `${target.url}/elsewhere` } }));
    const { id } = await webhook(rx.url, ['contact.created']);
    await contact(addr('redirect'));
    await rx.waitFor(6, 15_000); // the whole schedule (3 s)
    const attempts = await finalAttempts(id, 'failed');
    expect(attempts.map((a) => a.http_status_code)).toEqual([302, 302, 302, 302, 302, 302]);
    expect(target.requests).toHaveLength(0);
  });

  it('R15: an endpoint that does not answer is cut at the timeout (15 s × 0.2) and retried', async () => {
    const rx = await receiver((_req, i) => (i === 1 ? { status: 200, delayMs: 10_000 } : { status: 200 }));
    const { id } = await webhook(rx.url, ['contact.created']);
    await contact(addr('sleeper'));
    const got = await rx.waitFor(2, 10_000);
    expect(got[1]!.headers['svix-id']).toBe(got[0]!.headers['svix-id']);
    const attempts = await finalAttempts(id, 'success');
    expect(attempts.map((a) => a.http_status_code)).toEqual([200, 0]);
    expect(attempts[1]!.response).toMatch(/timed out/);
    // cut at the timeout, not before: the attempt's deadline runs from its start (sent_at), so
    // the retry (0.2 s after the cut) reaches the receiver 3 s or more after it; and not after —
    // the receiver would have answered 200 at 10 s, not have the attempt recorded as timed out
    expect(got[1]!.receivedAt - Date.parse(attempts[1]!.sent_at)).toBeGreaterThanOrEqual(3_000);
  });

  it('rotation: during the grace period both signatures are sent and each secret verifies', async () => {
    const rx = await receiver();
    const { id, secret: old } = await webhook(rx.url, ['contact.created']);
    const rotated = await stack.resend.webhooks.rotateSigningSecret(id);
    expect(rotated.error).toBeNull();
    expect(rotated.data).toEqual({ object: 'webhook', id, signing_secret: expect.stringMatching(/^whsec_/) });
    const fresh = rotated.data!.signing_secret;
    expect(fresh).not.toBe(old);
    expect((await stack.resend.webhooks.get(id)).data!.signing_secret).toBe(fresh);
    const email = addr('rotate');
    await contact(email);
    const [r] = await waitUntil(() =>
      forContact(rx, email).length === 1 ? forContact(rx, email) : undefined,
    );
    expect(String(r!.headers['svix-signature']).split(' ')).toHaveLength(2);
    expect(verified(r!, old).data).toMatchObject({ email });
    expect(verified(r!, fresh).data).toMatchObject({ email });
  });

  it('replay delivers a stored event again, under the same message id', async () => {
    const rx = await receiver();
    const { id, secret } = await webhook(rx.url, ['contact.created']);
    const email = addr('replay');
    await contact(email);
    await waitUntil(() => forContact(rx, email).length === 1);
    const eventId = (await stack.resend.webhooks.events.list({ webhookId: id })).data!.data[0]!.id;
    const replay = await stack.resend.webhooks.events.replay({ webhookId: id, eventId });
    expect(replay.error).toBeNull();
    expect(replay.data).toEqual({ object: 'webhook_event', id: eventId });
    const both = await waitUntil(() =>
      forContact(rx, email).length === 2 ? forContact(rx, email) : undefined,
    );
    expect(both[1]!.headers['svix-id']).toBe(both[0]!.headers['svix-id']);
    expect(both[1]!.body).toBe(both[0]!.body);
    verified(both[1]!, secret);
    const missing = await stack.resend.webhooks.events.replay({
      webhookId: id,
      eventId: '0190a0b0-0000-7000-8000-000000000000',
    });
    expect(missing.error).toMatchObject({ statusCode: 404, name: 'not_found' });
  });

  it('contact, topic and suppression events are delivered with their data', async () => {
    const rx = await receiver();
    const { secret } = await webhook(rx.url, [
      'contact.created',
      'contact.updated',
      'contact.deleted',
      'topic.created',
      'suppression.added',
      'suppression.removed',
    ]);
    const email = addr('audience');
    await contact(email);
    expect((await stack.resend.contacts.update({ email, firstName: 'Ada' })).error).toBeNull();
    const topic = await stack.resend.topics.create({ name: `hooks-${n}`, defaultSubscription: 'opt_in' });
    const suppressed = addr('suppressed');
    const added = await stack.resend.suppressions.add({ email: suppressed });
    expect(added.error).toBeNull();
    expect((await stack.resend.suppressions.remove(added.data!.id)).error).toBeNull();
    expect((await stack.resend.contacts.remove({ email })).error).toBeNull();
    const types = [
      'contact.created',
      'contact.updated',
      'topic.created',
      'suppression.added',
      'suppression.removed',
      'contact.deleted',
    ];
    const got = await waitUntil(
      () => {
        const events = rx.requests.map((r) => verified(r, secret));
        return types.every((t) => events.some((e) => e.type === t)) ? events : undefined;
      },
      { message: types.join(', ') },
    );
    expect(got.find((e) => e.type === 'contact.updated')!.data).toMatchObject({ email, first_name: 'Ada' });
    expect(got.find((e) => e.type === 'topic.created')!.data).toMatchObject({ id: topic.data!.id });
    expect(got.find((e) => e.type === 'suppression.added')!.data).toMatchObject({ email: suppressed });
  });

  it('a receiver down for a while (connection refused) then back gets everything', async () => {
    const first = await receiver();
    const port = first.port;
    const { id } = await webhook(first.url, ['contact.created']);
    await first.stop();
    receivers.splice(receivers.indexOf(first), 1);
    const emails = Array.from({ length: 10 }, (_, i) => addr(`down${i}`));
    for (const e of emails) await contact(e);
    // every event has had a refused attempt before the receiver comes back
    await waitUntil(
      async () => {
        const l = (await stack.resend.webhooks.events.list({ webhookId: id, limit: 100 })).data!.data;
        if (l.length < 10) return false;
        for (const e of l) {
          const a = (await stack.resend.webhooks.events.attempts.list({ webhookId: id, eventId: e.id })).data!
            .data;
          if (a.length === 0 || a.some((x) => x.http_status_code !== 0)) return false;
        }
        return true;
      },
      { message: 'a refused attempt per event' },
    );
    const back = await startHttpReceiver({ port });
    receivers.push(back);
    await waitUntil(() => emails.every((e) => forContact(back, e).length >= 1), {
      timeoutMs: 15_000,
      message: 'all 10 events delivered once the receiver is back',
    });
    const l = (await stack.resend.webhooks.events.list({ webhookId: id, limit: 100 })).data!.data;
    await waitUntil(async () =>
      (await stack.resend.webhooks.events.list({ webhookId: id, limit: 100 })).data!.data.every(
        (e) => e.status === 'success',
      ),
    );
    expect(l).toHaveLength(10);
  });

  it('a slow endpoint does not hold up a fast one', async () => {
    // the slow endpoint answers nothing until the fast one has had every delivery
    let release!: () => void;
    const fastDone = new Promise<void>((resolve) => (release = resolve));
    const slow = await receiver(() => ({ status: 200, until: fastDone }));
    const fast = await receiver();
    await webhook(slow.url, ['contact.created']);
    await webhook(fast.url, ['contact.created']);
    const emails = Array.from({ length: 40 }, (_, i) => addr(`pace${i}`));
    try {
      await Promise.all(emails.map((e) => contact(e)));
      await waitUntil(() => emails.every((e) => forContact(fast, e).length >= 1), {
        timeoutMs: 20_000,
        message: 'the fast endpoint to get all 40 while the slow one holds its requests',
      });
      // and the slow one has been given its endpoint's 10 slots' worth, all held meanwhile
      await waitUntil(() => slow.requests.length >= 10, { message: '10 held deliveries' });
    } finally {
      release();
    }
    await waitUntil(() => emails.every((e) => forContact(slow, e).length >= 1), {
      timeoutMs: 30_000,
      message: 'all 40 delivered to the slow endpoint once it answers',
    });
  });

  describe('validation', () => {
    it('unknown event types and bad endpoints are 422 naming the field; unknown ids 404', async () => {
      const bad = await stack.http('/webhooks', {
        method: 'POST',
        body: JSON.stringify({ endpoint: 'https://example.com/h', events: ['email.sent', 'email.nope'] }),
      });
      expect(bad.status).toBe(422);
      expect(bad.body).toMatchObject({
        name: 'validation_error',
        message: expect.stringMatching(/^events\[1\]: /),
      });
      const noEvents = await stack.http('/webhooks', {
        method: 'POST',
        body: JSON.stringify({ endpoint: 'https://example.com/h', events: [] }),
      });
      expect(noEvents.status).toBe(422);
      const ftp = await stack.http('/webhooks', {
        method: 'POST',
        body: JSON.stringify({ endpoint: 'ftp://example.com/h', events: ['email.sent'] }),
      });
      expect(ftp.body).toMatchObject({ statusCode: 422, message: expect.stringMatching(/^endpoint: /) });
      const missing = await stack.resend.webhooks.get('0190a0b0-0000-7000-8000-000000000000');
      expect(missing.error).toMatchObject({
        statusCode: 404,
        name: 'not_found',
        message: 'Webhook not found',
      });
      const status = await stack.http('/webhooks/0190a0b0-0000-7000-8000-000000000000', {
        method: 'PATCH',
        body: JSON.stringify({ status: 'paused' }),
      });
      expect(status.status).toBe(422);
    });

    it('create, get, list, update, delete: Resend shapes', async () => {
      const rx = await receiver();
      const { id, secret } = await webhook(rx.url, ['email.sent']);
      const got = await stack.resend.webhooks.get(id);
      expect(got.data).toEqual({
        object: 'webhook',
        id,
        endpoint: rx.url,
        created_at: expect.any(String),
        status: 'enabled',
        events: ['email.sent'],
        signing_secret: secret,
      });
      const updated = await stack.resend.webhooks.update(id, {
        endpoint: `${rx.url}/v2`,
        events: ['email.bounced'],
        status: 'disabled',
      });
      expect(updated.data).toEqual({ object: 'webhook', id });
      const list = await stack.resend.webhooks.list();
      expect(list.data!.data.find((w) => w.id === id)).toEqual({
        id,
        endpoint: `${rx.url}/v2`,
        created_at: got.data!.created_at,
        status: 'disabled',
        events: ['email.bounced'],
      });
      const removed = await stack.resend.webhooks.remove(id);
      expect(removed.data).toEqual({ object: 'webhook', id, deleted: true });
      webhooks.splice(webhooks.indexOf(id), 1);
      expect((await stack.resend.webhooks.get(id)).error).toMatchObject({ statusCode: 404 });
    });
  });
}
