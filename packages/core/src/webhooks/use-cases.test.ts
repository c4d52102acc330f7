import { describe, expect, it } from 'vitest';
import { formatIssues, type TeamEvent } from '@petrel/contracts';
import { MemoryWebhookQueue, MemoryWebhooks } from '@petrel/testing';
import { Webhook } from 'standardwebhooks';
import {
  createWebhook,
  createWebhookSchema,
  deleteWebhook,
  deliverDispatched,
  deliverWebhook,
  dispatchWebhookEvents,
  replayWebhookEvent,
  rotateWebhookSecret,
  updateWebhook,
  updateWebhookSchema,
  vetEndpoint,
  vetNewEndpoint,
  webhookMessageId,
  type WebhookAdminPorts,
  type WebhookRequest,
  type WebhookSendResult,
} from './index.js';

const T = 't1';
const ok = async () => ({
  ok: true as const,
  url: new URL('https://x.test'),
  address: '93.184.216.34',
  family: 4 as const,
  host: 'x.test',
});

function admin(now = 1_000_000): WebhookAdminPorts & { webhooks: MemoryWebhooks } {
  return { webhooks: new MemoryWebhooks(), clock: { now: () => now }, vet: ok, rotationGraceMs: 60_000 };
}

const problem = (schema: typeof createWebhookSchema | typeof updateWebhookSchema, body: unknown) => {
  const r = schema.safeParse(body);
  return r.success ? undefined : formatIssues(r.error.issues, { input: body });
};

const event = (type: string, i = 0): TeamEvent =>
  ({
    id: `0190a0b0-0000-7000-8000-00000000000${i}`,
    type,
    created_at: '2026-01-01T00:00:00.000Z',
    teamId: T,
    data: { i },
  }) as TeamEvent;

describe('webhook schemas', () => {
  it.each([
    [{ events: ['email.sent'] }, 'endpoint: is required'],
    [{ endpoint: 'https://x.test/h' }, 'events: is required'],
    [
      { endpoint: 'https://x.test/h', events: [] },
      'events: must be a non-empty array of webhook event types',
    ],
    [
      { endpoint: 'https://x.test/h', events: ['email.sent', 'email.nope'] },
      'events[1]: must be a webhook event type, e.g. email.sent, email.delivered, contact.created',
    ],
    [
      { endpoint: 'ftp://x.test/h', events: ['email.sent'] },
      'endpoint: must be an absolute http or https URL',
    ],
    [{ endpoint: 'https://u:p@x.test/h', events: ['email.sent'] }, 'endpoint: must not contain credentials'],
    [{ endpoint: 7, events: ['email.sent'] }, 'endpoint: must be a string'],
  ])('refuses %j: %s', (body, message) => {
    expect(problem(createWebhookSchema, body)).toBe(message);
  });

  it('dedupes events, accepts Resend types Petrel does not emit yet, and status on update only', () => {
    expect(
      createWebhookSchema.parse({
        endpoint: 'https://x.test',
        events: ['email.sent', 'email.sent', 'domain.created'],
      }).events,
    ).toEqual(['email.sent', 'domain.created']);
    expect(problem(updateWebhookSchema, { status: 'paused' })).toBe(
      "status: must be one of 'enabled', 'disabled'",
    );
    expect(updateWebhookSchema.parse({})).toEqual({});
  });
});

describe('vetEndpoint', () => {
  const resolve = async (name: string) =>
    name === 'evil.test' ? ['127.0.0.1'] : name === 'docs.test' ? ['192.0.2.10'] : ['93.184.216.34'];
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/',
    'http://localhost/',
    'http://metadata.google.internal/',
    'http://evil.test/',
    'http://192.0.2.1/',
    'http://198.51.100.1/',
    'http://203.0.113.1/',
    'http://192.88.99.1/',
    'http://[2001:db8::1]/',
    'http://docs.test/',
  ])('refuses %s', async (url) => {
    const v = await vetEndpoint(url, { allowPrivate: false, resolve });
    expect(v.ok).toBe(false);
  });
  it('accepts public hosts and pins the resolved address; private ones only with the flag', async () => {
    expect(await vetEndpoint('https://hooks.test/x', { allowPrivate: false, resolve })).toMatchObject({
      ok: true,
      address: '93.184.216.34',
    });
    expect(await vetEndpoint('http://evil.test/', { allowPrivate: true, resolve })).toMatchObject({
      ok: true,
      address: '127.0.0.1',
    });
  });
  it('names the address and its special-purpose block; private networks allowed still refuse TEST-NETs', async () => {
    expect(await vetEndpoint('http://192.0.2.1/', { allowPrivate: true, resolve })).toEqual({
      ok: false,
      reason:
        '192.0.2.1 is a private or reserved network address (192.0.2.0/24, Documentation (TEST-NET-1), RFC 5737); webhooks are delivered to public hosts only',
    });
    expect(await vetEndpoint('http://docs.test/', { allowPrivate: true, resolve })).toEqual({
      ok: false,
      reason:
        'docs.test resolves to a private or reserved network address; webhooks are delivered to public hosts only',
    });
  });
});

describe('vetNewEndpoint', () => {
  it('with private networks allowed, checks the URL and IP literals only (no resolution); else vets like a delivery', async () => {
    const resolve = async (): Promise<string[]> => {
      throw Object.assign(new Error('no DNS'), { code: 'ENOTFOUND' });
    };
    expect(await vetNewEndpoint('https://hooks.test/x', { allowPrivate: true, resolve })).toEqual({
      ok: true,
    });
    expect(await vetNewEndpoint('ftp://hooks.test/x', { allowPrivate: true, resolve })).toMatchObject({
      ok: false,
    });
    expect(await vetNewEndpoint('http://127.0.0.1:8080/', { allowPrivate: true, resolve })).toMatchObject({
      ok: true,
    });
    expect(await vetNewEndpoint('http://203.0.113.1/', { allowPrivate: true, resolve })).toMatchObject({
      ok: false,
      reason: expect.stringContaining('(203.0.113.0/24, Documentation (TEST-NET-3), RFC 5737)'),
    });
    expect(await vetNewEndpoint('https://hooks.test/x', { allowPrivate: false, resolve })).toMatchObject({
      ok: false,
      reason: 'could not resolve hooks.test (ENOTFOUND)',
      unresolved: true,
    });
  });
});

describe('webhook admin use-cases', () => {
  it('create → secret; update; rotate keeps the old secret for the grace period; delete; 404s', async () => {
    const ports = admin();
    const { id, signing_secret } = await createWebhook(
      { teamId: T, input: { endpoint: 'https://x.test', events: ['email.sent'] } },
      ports,
    );
    expect(signing_secret).toMatch(/^whsec_/);
    await updateWebhook(
      { teamId: T, webhookId: id, patch: { status: 'disabled', events: ['email.bounced'] } },
      ports,
    );
    expect(await ports.webhooks.get(T, id)).toMatchObject({ status: 'disabled', events: ['email.bounced'] });
    const rotated = await rotateWebhookSecret({ teamId: T, webhookId: id }, ports);
    expect(await ports.webhooks.get(T, id)).toMatchObject({
      secret: rotated.signing_secret,
      previous_secret: signing_secret,
      previous_secret_expires_ms: 1_060_000,
    });
    await deleteWebhook({ teamId: T, webhookId: id }, ports);
    await expect(deleteWebhook({ teamId: T, webhookId: id }, ports)).rejects.toMatchObject({
      statusCode: 404,
      message: 'Webhook not found',
    });
    await expect(rotateWebhookSecret({ teamId: T, webhookId: id }, ports)).rejects.toMatchObject({
      statusCode: 404,
    });
  });

  it('a refused endpoint is a 422 naming endpoint, at create and update', async () => {
    const ports = { ...admin(), vet: async () => ({ ok: false as const, reason: '10.0.0.1 is private' }) };
    await expect(
      createWebhook({ teamId: T, input: { endpoint: 'http://10.0.0.1', events: ['email.sent'] } }, ports),
    ).rejects.toMatchObject({ statusCode: 422, message: 'endpoint: 10.0.0.1 is private' });
    expect(ports.webhooks.endpoints.size).toBe(0);
  });
});

describe('dispatch and delivery', () => {
  async function setup() {
    const ports = admin(Date.now()); // receivers refuse timestamps older than 5 minutes
    const a = await createWebhook(
      { teamId: T, input: { endpoint: 'https://a.test', events: ['contact.created'] } },
      ports,
    );
    const b = await createWebhook(
      { teamId: T, input: { endpoint: 'https://b.test', events: ['topic.created'] } },
      ports,
    );
    return { ports, a, b, queue: new MemoryWebhookQueue() };
  }

  it('one entry and one ready delivery per subscribed enabled endpoint; timeline-only kinds skipped; a re-read enqueues the unfinished', async () => {
    const { ports, a, b, queue } = await setup();
    const deps = { webhooks: ports.webhooks, log: ports.webhooks, queue, clock: ports.clock };
    const events = [
      event('contact.created', 1),
      { ...event('email.queued', 2), type: 'email.queued' } as never,
      event('topic.created', 3),
    ];
    const first = await dispatchWebhookEvents({ teamId: T, events }, deps);
    expect(first.deliveries).toBe(2);
    expect(first.ready.map((r) => [r.endpoint.id, r.entry.id, r.entry.status, r.entry.run_attempts])).toEqual(
      [
        [a.id, event('contact.created', 1).id, 'pending', 0],
        [b.id, event('topic.created', 3).id, 'pending', 0],
      ],
    );
    // the entry handed back is the one stored
    expect(await ports.webhooks.getEvent(T, a.id, first.ready[0]!.entry.id)).toEqual(first.ready[0]!.entry);
    expect(queue.jobs.size).toBe(0); // ready deliveries are the caller's to attempt or enqueue
    // read again (the consumer died before acknowledging): still pending, so both are queued
    expect(await dispatchWebhookEvents({ teamId: T, events }, deps)).toEqual({ deliveries: 2, ready: [] });
    expect(queue.jobs.size).toBe(2);
    const entry = await ports.webhooks.getEvent(T, a.id, event('contact.created', 1).id);
    expect(JSON.parse(entry!.payload)).toEqual({
      type: 'contact.created',
      created_at: '2026-01-01T00:00:00.000Z',
      data: { i: 1 },
    });
    await updateWebhook({ teamId: T, webhookId: a.id, patch: { status: 'disabled' } }, ports);
    expect(await dispatchWebhookEvents({ teamId: T, events: [event('contact.created', 4)] }, deps)).toEqual({
      deliveries: 0,
      ready: [],
    });
  });

  it('deliverDispatched: the first attempt needs no job; a retry becomes one delayed job by the schedule', async () => {
    const { ports, a, queue } = await setup();
    const deps = { webhooks: ports.webhooks, log: ports.webhooks, queue, clock: ports.clock };
    const { ready } = await dispatchWebhookEvents(
      { teamId: T, events: [event('contact.created', 1), event('contact.created', 2)] },
      deps,
    );
    const sent: WebhookRequest[] = [];
    const answers = [200, 503];
    const sender = {
      send: async (req: WebhookRequest): Promise<WebhookSendResult> => {
        sent.push(req);
        return { kind: 'response', status: answers.shift()!, responseBody: 'r', latencyMs: 1 };
      },
    };
    const dports = { log: ports.webhooks, sender, clock: ports.clock, queue };
    const policy = { scheduleMs: [0, 700, 900], disableAfterMs: 1e9 };
    expect(await deliverDispatched(ready[0]!, dports, policy)).toMatchObject({
      attempt: 1,
      decision: { event: 'success' },
    });
    expect(queue.jobs.size).toBe(0);
    expect((await ports.webhooks.getEvent(T, a.id, ready[0]!.entry.id))!.status).toBe('success');
    expect(await deliverDispatched(ready[1]!, dports, policy)).toMatchObject({
      attempt: 1,
      decision: { event: 'retry', delayMs: 700 },
    });
    const eventId = ready[1]!.entry.id;
    expect([...queue.jobs]).toEqual([
      [`wh:${eventId}:${a.id}`, { teamId: T, endpointId: a.id, eventId, delayMs: 700 }],
    ]);
    expect(await ports.webhooks.getEvent(T, a.id, eventId)).toMatchObject({
      status: 'pending',
      run_attempts: 1,
      next_attempt_ms: ports.clock.now() + 700,
    });
    const secret = (await ports.webhooks.get(T, a.id))!.secret;
    for (const req of sent) expect(() => new Webhook(secret).verify(req.body, req.headers)).not.toThrow();
    expect(sent.map((r) => r.headers['webhook-id'])).toEqual([
      webhookMessageId(ready[0]!.entry.id),
      webhookMessageId(eventId),
    ]);
  });

  it('deliverWebhook signs, records, retries on 500, succeeds, and replays under the same id', async () => {
    const { ports, a, queue } = await setup();
    const deps = { webhooks: ports.webhooks, log: ports.webhooks, queue, clock: ports.clock };
    await dispatchWebhookEvents({ teamId: T, events: [event('contact.created', 1)] }, deps);
    const sent: WebhookRequest[] = [];
    const answers = [500, 200, 200];
    const sender = {
      send: async (req: WebhookRequest): Promise<WebhookSendResult> => {
        sent.push(req);
        return { kind: 'response', status: answers.shift()!, responseBody: 'r', latencyMs: 1 };
      },
    };
    const dports = { webhooks: ports.webhooks, log: ports.webhooks, sender, clock: ports.clock };
    const policy = { scheduleMs: [0, 10, 20], disableAfterMs: 1e9 };
    const cmd = { teamId: T, endpointId: a.id, eventId: event('contact.created', 1).id };
    expect(await deliverWebhook(cmd, dports, policy)).toMatchObject({
      kind: 'attempted',
      attempt: 1,
      decision: { event: 'retry', delayMs: 10 },
    });
    expect(await deliverWebhook(cmd, dports, policy)).toMatchObject({
      attempt: 2,
      decision: { event: 'success' },
    });
    expect(await deliverWebhook(cmd, dports, policy)).toEqual({ kind: 'skipped', reason: 'finished' });
    const secret = (await ports.webhooks.get(T, a.id))!.secret;
    for (const req of sent) expect(() => new Webhook(secret).verify(req.body, req.headers)).not.toThrow();
    expect(sent[0]!.headers['svix-id']).toBe(sent[1]!.headers['svix-id']);

    await replayWebhookEvent(
      { teamId: T, webhookId: a.id, eventId: cmd.eventId },
      { webhooks: ports.webhooks, log: ports.webhooks, queue },
    );
    expect([...queue.jobs.keys()]).toContain(`wh:${cmd.eventId}:${a.id}~1`);
    expect(await deliverWebhook(cmd, dports, policy)).toMatchObject({
      attempt: 1,
      decision: { event: 'success' },
    });
    expect(sent[2]!.headers['webhook-id']).toBe(sent[0]!.headers['webhook-id']);
    await expect(
      replayWebhookEvent(
        { teamId: T, webhookId: a.id, eventId: 'nope' },
        { webhooks: ports.webhooks, log: ports.webhooks, queue },
      ),
    ).rejects.toMatchObject({ statusCode: 404, message: 'Webhook event not found' });
  });

  it('a Retry-After on 429 is honoured, scaled like the schedule', async () => {
    const { ports, a, queue } = await setup();
    const deps = { webhooks: ports.webhooks, log: ports.webhooks, queue, clock: ports.clock };
    await dispatchWebhookEvents({ teamId: T, events: [event('contact.created', 1)] }, deps);
    const sender = {
      send: async (): Promise<WebhookSendResult> => ({
        kind: 'response',
        status: 429,
        retryAfterMs: 120_000,
        responseBody: '',
        latencyMs: 1,
      }),
    };
    const result = await deliverWebhook(
      { teamId: T, endpointId: a.id, eventId: event('x', 1).id },
      { log: ports.webhooks, sender, clock: ports.clock },
      { scheduleMs: [0, 5], disableAfterMs: 1e9, retryAfterScale: 0.001 },
    );
    expect(result).toMatchObject({ decision: { event: 'retry', delayMs: 120 } });
  });

  it('410 disables the endpoint; a disabled endpoint gets no attempt and its entry fails', async () => {
    const { ports, a, queue } = await setup();
    const deps = { webhooks: ports.webhooks, log: ports.webhooks, queue, clock: ports.clock };
    await dispatchWebhookEvents(
      { teamId: T, events: [event('contact.created', 1), event('contact.created', 2)] },
      deps,
    );
    let calls = 0;
    const sender = {
      send: async (): Promise<WebhookSendResult> => (
        calls++,
        { kind: 'response', status: 410, responseBody: '', latencyMs: 1 }
      ),
    };
    const dports = { webhooks: ports.webhooks, log: ports.webhooks, sender, clock: ports.clock };
    const policy = { scheduleMs: [0, 10], disableAfterMs: 1e9 };
    expect(
      await deliverWebhook({ teamId: T, endpointId: a.id, eventId: event('x', 1).id }, dports, policy),
    ).toMatchObject({ disabled: true });
    expect(
      await deliverWebhook({ teamId: T, endpointId: a.id, eventId: event('x', 2).id }, dports, policy),
    ).toEqual({
      kind: 'skipped',
      reason: 'endpoint_disabled',
    });
    expect(calls).toBe(1);
    expect((await ports.webhooks.getEvent(T, a.id, event('x', 2).id))!.status).toBe('failed');
  });
});
