import { describe, expect, it } from 'vitest';
import { newId, newWebhookEndpoint, type WebhookEndpoint } from '@petrel/core';
import { EVENTS_STREAM_FIELD, EVENTS_STREAM_MAXLEN } from './keys.js';
import { useStoreRedis, nextTeam } from './redis.fixture.js';
import { defineScripts } from './scripts.js';
import { WebhooksStore } from './webhooks.store.js';
import { WebhookEventStream } from './webhook-stream.store.js';

const fx = useStoreRedis('webhooks');
const DAY = 86_400_000;

function endpoint(over: Partial<WebhookEndpoint> = {}): WebhookEndpoint {
  return {
    ...newWebhookEndpoint({
      id: newId(),
      endpoint: 'https://hooks.example.com/in',
      events: ['email.sent', 'contact.created'],
      created_at: new Date().toISOString(),
      secret: 'whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0',
    }),
    ...over,
  };
}

async function publish(teamId: string, type: string): Promise<string> {
  const id = newId();
  const event = { id, type, created_at: new Date().toISOString(), teamId, data: { n: 1 } };
  await fx.redis.xadd(
    fx.keys.events(teamId),
    'MAXLEN',
    '~',
    EVENTS_STREAM_MAXLEN,
    '*',
    EVENTS_STREAM_FIELD,
    JSON.stringify(event),
  );
  return id;
}

/** An entry whose time orders the listing: `ageMs` before now. */
const entry = (w: WebhookEndpoint, id: string, ageMs = 0) => ({
  endpointId: w.id,
  id,
  type: 'email.sent',
  created_at: new Date(Date.now() - ageMs).toISOString(),
  payload: `{"type":"email.sent","n":"${id}"}`,
});

const attemptOf = (code: number) => ({
  id: newId(),
  http_status_code: code,
  response: 'r',
  sent_at: new Date().toISOString(),
  latency_ms: 3,
});

describe('WebhooksStore', () => {
  it('creates, reads, lists, updates, rotates and deletes endpoints; the team joins the global set', async () => {
    const store = new WebhooksStore(fx.redis, fx.keys, DAY);
    const t = nextTeam();
    const a = endpoint({ created_at: new Date(Date.now() - 10).toISOString() });
    const b = endpoint({ events: ['email.delivered'] });
    await store.create(t, a);
    await store.create(t, b);
    expect(await store.get(t, a.id)).toEqual(a);
    expect(await store.get(t, a.id.toUpperCase())).toEqual(a);
    expect(await store.teamsWithWebhooks()).toContain(t);
    expect((await store.list(t, { limit: 1 }))!).toMatchObject({ items: [b], hasMore: true });
    expect(await store.count(t)).toBe(2);

    await fx.redis.hset(
      fx.keys.webhook(t, a.id),
      'failing_since_ms',
      '5',
      'status',
      'disabled',
      'disabled_reason',
      'gone',
    );
    expect(await store.update(t, a.id, { status: 'enabled', events: ['email.bounced'] })).toBe(true);
    expect(await store.get(t, a.id)).toMatchObject({
      status: 'enabled',
      events: ['email.bounced'],
      failing_since_ms: null,
      disabled_reason: null,
    });

    expect(await store.rotateSecret(t, a.id, 'whsec_bmV3', 1234)).toBe(true);
    expect(await store.get(t, a.id)).toMatchObject({
      secret: 'whsec_bmV3',
      previous_secret: a.secret,
      previous_secret_expires_ms: 1234,
    });

    expect(await store.delete(t, a.id)).toBe(true);
    expect(await store.delete(t, a.id)).toBe(false);
    expect(await store.update(t, a.id, { status: 'disabled' })).toBe(false);
    expect(await store.rotateSecret(t, a.id, 'x', 1)).toBe(false);
    expect(await store.get(t, 'not-a-uuid')).toBeNull();

    await store.pruneTeam(t);
    expect(await store.teamsWithWebhooks()).toContain(t); // b is left
    await store.delete(t, b.id);
    await store.pruneTeam(t);
    expect(await store.teamsWithWebhooks()).not.toContain(t);
  });

  it('the first webhook starts the consumer group at the end of the stream; reads, acks and claims', async () => {
    const store = new WebhooksStore(fx.redis, fx.keys, DAY);
    const stream = new WebhookEventStream(fx.redis, fx.keys);
    const t = nextTeam();
    await publish(t, 'email.sent'); // before any webhook: never delivered
    await store.create(t, endpoint());
    const after = await publish(t, 'email.sent');
    const read = await stream.read(t, 'c1', 10);
    expect(read.map((r) => r.event?.id)).toEqual([after]);
    expect(await stream.read(t, 'c1', 10)).toEqual([]);
    // c1 died before acknowledging: c2 claims it once it is idle long enough
    expect(await stream.claimStale(t, 'c2', 60_000, 10)).toEqual([]);
    const claimed = await stream.claimStale(t, 'c2', 0, 10);
    expect(claimed.map((r) => r.event?.id)).toEqual([after]);
    await stream.ack(
      t,
      claimed.map((r) => r.entryId),
    );
    expect(await stream.claimStale(t, 'c3', 0, 10)).toEqual([]);

    // all webhooks deleted, events go by, a new first webhook starts from the end again
    await publish(t, 'email.sent');
    const again = await store.all(t);
    for (const w of again) await store.delete(t, w.id);
    await publish(t, 'email.sent');
    await store.create(t, endpoint());
    const latest = await publish(t, 'contact.created');
    expect((await stream.read(t, 'c1', 10)).map((r) => r.event?.id)).toEqual([latest]);
    expect(await stream.read(nextTeam(), 'c1', 10)).toEqual([]); // no group yet: created, empty
  });

  it('event log: written once, re-read entries still due, attempts recorded with health, replay', async () => {
    const store = new WebhooksStore(fx.redis, fx.keys, DAY);
    const t = nextTeam();
    const w = endpoint();
    await store.create(t, w);
    const [e1, e2] = [newId(), newId()];
    expect(await store.addEvents(t, [entry(w, e1, 10), entry(w, e2)], Date.now())).toEqual(['new', 'new']);
    expect(await store.addEvents(t, [entry(w, e1)], Date.now())).toEqual(['due']); // still pending

    const started = await store.beginAttempt(t, w.id, e1);
    expect(started.endpoint).toEqual(w);
    expect(started.entry).toMatchObject({
      id: e1,
      status: 'pending',
      run_attempts: 0,
      payload: entry(w, e1).payload,
    });
    expect((await store.getEvent(t, w.id, e1))!.status).toBe('attempting');

    expect(
      await store.recordAttempt(t, w.id, e1, {
        attempt: attemptOf(500),
        status: 'pending',
        nextAttemptMs: 99,
        health: { kind: 'failing', sinceMs: 42 },
      }),
    ).toBe('recorded');
    expect(await store.getEvent(t, w.id, e1)).toMatchObject({
      status: 'pending',
      next_attempt_ms: 99,
      run_attempts: 1,
    });
    expect((await store.get(t, w.id))!.failing_since_ms).toBe(42);
    // a later failure keeps the start of the run
    await store.recordAttempt(t, w.id, e1, {
      attempt: attemptOf(500),
      status: 'pending',
      nextAttemptMs: 100,
      health: { kind: 'failing', sinceMs: 77 },
    });
    expect((await store.get(t, w.id))!.failing_since_ms).toBe(42);
    expect(
      await store.recordAttempt(t, w.id, e1, {
        attempt: attemptOf(200),
        status: 'success',
        nextAttemptMs: null,
        health: { kind: 'healthy' },
      }),
    ).toBe('recorded');
    expect(await store.get(t, w.id)).toMatchObject({ failing_since_ms: null, status: 'enabled' });
    expect((await store.attempts(t, w.id, e1)).map((a) => a.http_status_code)).toEqual([200, 500, 500]);
    expect(await store.addEvents(t, [entry(w, e1)], Date.now())).toEqual(['finished']);
    expect((await store.beginAttempt(t, w.id, e1)).entry!.status).toBe('success');

    expect(
      await store.recordAttempt(t, w.id, e2, {
        attempt: attemptOf(410),
        status: 'failed',
        nextAttemptMs: null,
        health: { kind: 'disable', reason: 'gone', sinceMs: 1 },
      }),
    ).toBe('disabled');
    expect(await store.get(t, w.id)).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });

    expect(await store.startReplay(t, w.id, e1)).toBe(1);
    expect(await store.getEvent(t, w.id, e1)).toMatchObject({
      status: 'pending',
      run_attempts: 0,
      replays: 1,
    });
    expect(await store.startReplay(t, w.id, newId())).toBeNull();
    // the endpoint is disabled now: beginning an attempt fails the entry instead
    expect((await store.beginAttempt(t, w.id, e1)).endpoint!.status).toBe('disabled');
    expect((await store.getEvent(t, w.id, e1))!.status).toBe('failed');
    expect(await store.beginAttempt(t, w.id, newId())).toMatchObject({ entry: null });

    const page = (await store.listEvents(t, w.id, { limit: 1 }))!;
    expect(page.items.map((e) => e.id)).toEqual([e2]);
    expect(page.hasMore).toBe(true);
    const next = (await store.listEvents(t, w.id, { limit: 5, after: e2 }))!;
    expect(next.items.map((e) => e.id)).toEqual([e1]);
  });
  it('attempts ending in one turn are recorded by one script call, each with its own outcome, in order', async () => {
    const store = new WebhooksStore(fx.redis, fx.keys, DAY);
    const t = nextTeam();
    const w = endpoint();
    await store.create(t, w);
    const ids = [newId(), newId(), newId()];
    await store.addEvents(
      t,
      ids.map((id) => entry(w, id)),
      Date.now(),
    );
    // the store's own client (scripts defined on it), each call to the script counted
    const redis = defineScripts(fx.redis);
    const calls: unknown[] = [];
    const original = redis.petrelRecordWebhookAttempts;
    redis.petrelRecordWebhookAttempts = function (this: unknown, ...args: Parameters<typeof original>) {
      calls.push(args[0]);
      return original.apply(this, args);
    };
    const disable = { kind: 'disable', reason: 'gone', sinceMs: 9 } as const;
    try {
      const outcomes = await Promise.all([
        store.recordAttempt(t, w.id, ids[0]!, {
          attempt: attemptOf(500),
          status: 'pending',
          nextAttemptMs: 5,
          health: { kind: 'failing', sinceMs: 7 },
        }),
        store.recordAttempt(t, w.id, ids[1]!, {
          attempt: attemptOf(410),
          status: 'failed',
          nextAttemptMs: null,
          health: disable,
        }),
        // the attempt before disabled the endpoint already: this one only records
        store.recordAttempt(t, w.id, ids[2]!, {
          attempt: attemptOf(410),
          status: 'failed',
          nextAttemptMs: null,
          health: disable,
        }),
        store.recordAttempt(t, w.id, newId(), {
          attempt: attemptOf(200),
          status: 'success',
          nextAttemptMs: null,
          health: { kind: 'healthy' },
        }),
      ]);
      expect(outcomes).toEqual(['recorded', 'disabled', 'recorded', 'gone']);
      expect(calls).toEqual([12]); // one call: 4 attempts × (webhook, entry, attempts)
    } finally {
      redis.petrelRecordWebhookAttempts = original;
    }
    // the run of failures starts at the first one's time
    expect(await store.get(t, w.id)).toMatchObject({
      status: 'disabled',
      disabled_reason: 'gone',
      failing_since_ms: 7,
    });
    expect(await store.getEvent(t, w.id, ids[0]!)).toMatchObject({
      status: 'pending',
      next_attempt_ms: 5,
      run_attempts: 1,
    });
    expect((await store.attempts(t, w.id, ids[1]!)).map((a) => a.http_status_code)).toEqual([410]);
    expect((await store.getEvent(t, w.id, ids[2]!))!.status).toBe('failed');
  });
});
