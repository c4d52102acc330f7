/**
 * The dispatcher against a real redis-server and a real HTTP receiver: a first attempt is made
 * straight from the stream batch (no delivery job unless a retry needs one) and its stream entry
 * is acknowledged once recorded; an entry whose delivery is still in flight is never claimed
 * again by its own dispatcher, however long the receiver holds it.
 */
import { describe, expect, it } from 'vitest';
import { webhookDeliveryJobId } from '@petrel/contracts';
import { newId } from '@petrel/core';
import { WebhookDeliveryQueue } from '@petrel/queue';
import { EVENTS_STREAM_FIELD, Keys, WEBHOOK_CONSUMER_GROUP, WebhooksStore } from '@petrel/store';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { startHttpReceiver, uniquePrefix, waitUntil, type ScriptedResponse } from '@petrel/testing';
import { loadWebhooksConfig } from './config.js';
import { addContactEndpoint } from './endpoint.fixture.js';
import { startWebhookDispatcher, type WebhookDispatcher } from './dispatcher.js';

const TEAM = 'team-1';
const db = useStoreRedis('whdirect');

async function setup(respond: () => ScriptedResponse, env: Record<string, string> = {}) {
  const prefix = uniquePrefix('whdirect');
  const keys = new Keys(prefix);
  const rx = await startHttpReceiver({ respond });
  const store = new WebhooksStore(db.redis, keys, 86_400_000);
  const webhookId = await addContactEndpoint(store, TEAM, rx.url);
  const dispatcher: WebhookDispatcher = await startWebhookDispatcher(
    loadWebhooksConfig({
      REDIS_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0,60',
      ...env,
    }),
  );
  const publish = async (): Promise<string> => {
    const id = newId();
    const event = {
      id,
      type: 'contact.created',
      created_at: new Date().toISOString(),
      teamId: TEAM,
      data: {},
    };
    await db.redis.xadd(keys.events(TEAM), '*', EVENTS_STREAM_FIELD, JSON.stringify(event));
    return id;
  };
  /** Entries of the team's stream read by the group and not acknowledged. */
  const pending = async (): Promise<{ count: number; idleMs: number[] }> => {
    const rows = (await db.redis.xpending(keys.events(TEAM), WEBHOOK_CONSUMER_GROUP, '-', '+', 100)) as [
      string,
      string,
      number,
      number,
    ][];
    return { count: rows.length, idleMs: rows.map((r) => Number(r[2])) };
  };
  const stop = async () => {
    await dispatcher.close();
    await rx.stop();
  };
  return { keys, rx, store, webhookId, publish, pending, stop };
}

describe('first attempts straight from the stream', () => {
  it('a 200 leaves no job, a 500 leaves one delayed job on the schedule; both entries acknowledged', async () => {
    let n = 0;
    const s = await setup(() => (++n === 1 ? { status: 200 } : { status: 500, body: 'boom' }));
    const queue = new WebhookDeliveryQueue(db.redis, { prefix: s.keys.bullPrefix() });
    try {
      const ok = await s.publish();
      await waitUntil(async () => (await s.store.getEvent(TEAM, s.webhookId, ok))?.status === 'success');
      const failing = await s.publish();
      await waitUntil(async () => (await s.store.getEvent(TEAM, s.webhookId, failing))?.run_attempts === 1);
      expect(await s.store.getEvent(TEAM, s.webhookId, failing)).toMatchObject({
        status: 'pending',
        next_attempt_ms: expect.any(Number),
      });
      await waitUntil(async () => (await s.pending()).count === 0, { message: 'both entries acknowledged' });
      expect(await queue.queue.getJobState(webhookDeliveryJobId(ok, s.webhookId))).toBe('unknown');
      const retry = await queue.queue.getJob(webhookDeliveryJobId(failing, s.webhookId));
      expect(await retry!.getState()).toBe('delayed');
      expect(retry!.delay).toBe(60_000); // the schedule's second wait
      expect(s.rx.requests).toHaveLength(2);
      expect((await s.store.attempts(TEAM, s.webhookId, failing)).map((a) => a.http_status_code)).toEqual([
        500,
      ]);
    } finally {
      await queue.close();
      await s.stop();
    }
  });

  it('an entry whose delivery is held longer than WEBHOOK_CLAIM_IDLE_MS is touched, not claimed again', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const s = await setup(() => ({ status: 200, until: held }), {
      WEBHOOK_CLAIM_IDLE_MS: '200',
      WEBHOOK_TIMEOUT_MS: '60000',
    });
    try {
      const id = await s.publish();
      await s.rx.waitFor(1);
      const since = Date.now();
      // well past several claim rounds (every 100 ms): the entry is still pending and kept fresh
      await waitUntil(async () => Date.now() - since > 1_000 && (await s.pending()).count === 1, {
        message: 'a second of claim rounds',
      });
      const { idleMs } = await s.pending();
      expect(idleMs[0]).toBeLessThan(1_000); // touched meanwhile, or it would be idle since the read
      expect(s.rx.requests).toHaveLength(1); // not delivered a second time
      release();
      await waitUntil(async () => (await s.store.getEvent(TEAM, s.webhookId, id))?.status === 'success');
      await waitUntil(async () => (await s.pending()).count === 0, { message: 'the entry acknowledged' });
      expect(s.rx.requests).toHaveLength(1);
    } finally {
      release();
      await s.stop();
    }
  });
});
