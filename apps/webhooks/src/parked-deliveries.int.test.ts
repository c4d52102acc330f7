/**
 * A busy endpoint's queued deliveries, against a real redis-server and a real HTTP receiver: a
 * burst to an endpoint at its cap (1 or 2) is parked until its slots free — not polled — and
 * delivered completely, each once, with the cap held and the wait not counted as an attempt; the
 * Redis commands spent stay within a bound per delivery that the design sets (one fetch, one park,
 * one wake-up and one more fetch per delivery, beside the attempt's own), however long the endpoint
 * keeps them waiting. A dispatcher that closes hands its parked jobs to the others at once.
 */
import { describe, expect, it } from 'vitest';
import { newId } from '@petrel/core';
import { WebhookDeliveryQueue } from '@petrel/queue';
import { EVENTS_STREAM_FIELD, Keys, WebhooksStore } from '@petrel/store';
import { useStoreRedis } from '../../../packages/store/src/redis.fixture.js';
import { startHttpReceiver, uniquePrefix, waitUntil, type ScriptedResponse } from '@petrel/testing';
import { loadWebhooksConfig } from './config.js';
import { addContactEndpoint } from './endpoint.fixture.js';
import { startWebhookDispatcher } from './dispatcher.js';

const TEAM = 'team-1';
const BURST = 20;
/** How long the endpoint takes to answer each delivery after the first. */
const SLOW_MS = 50;
const db = useStoreRedis('whpark');

/** Redis commands processed so far, scripts' own commands included (INFO stats). */
async function commandsProcessed(): Promise<number> {
  const info = await db.redis.info('stats');
  return Number(/total_commands_processed:(\d+)/.exec(info)![1]);
}

async function setup(respond: (n: number) => ScriptedResponse) {
  const prefix = uniquePrefix('whpark');
  const keys = new Keys(prefix);
  const rx = await startHttpReceiver({ respond: (_req, n) => respond(n) });
  const store = new WebhooksStore(db.redis, keys, 86_400_000);
  const webhookId = await addContactEndpoint(store, TEAM, rx.url);
  const queue = new WebhookDeliveryQueue(db.redis, { prefix: keys.bullPrefix() });
  const config = (cap: number) =>
    loadWebhooksConfig({
      REDIS_URL: db.url,
      REDIS_KEY_PREFIX: prefix,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_ENDPOINT_CONCURRENCY: String(cap),
    });
  const dispatcher = (cap: number) => startWebhookDispatcher(config(cap));
  const burst = async (): Promise<string[]> => {
    const ids = Array.from({ length: BURST }, () => newId());
    const created_at = new Date().toISOString();
    const pipeline = db.redis.pipeline();
    for (const id of ids) {
      const event = { id, type: 'contact.created', created_at, teamId: TEAM, data: {} };
      pipeline.xadd(keys.events(TEAM), '*', EVENTS_STREAM_FIELD, JSON.stringify(event));
    }
    await pipeline.exec();
    return ids;
  };
  /** Every event delivered once: one request each, a distinct message id each, one attempt each. */
  const deliveredOnce = async (ids: string[]) => {
    await waitUntil(
      async () => {
        for (const id of ids)
          if ((await store.getEvent(TEAM, webhookId, id))?.status !== 'success') return false;
        return true;
      },
      { message: 'every event recorded as delivered' },
    );
    expect(rx.requests).toHaveLength(BURST);
    expect(new Set(rx.requests.map((r) => r.headers['webhook-id'])).size).toBe(BURST);
    for (const id of ids) {
      // the parked wait is not an attempt: one run, one attempt, answered 200
      expect(await store.getEvent(TEAM, webhookId, id)).toMatchObject({ status: 'success', run_attempts: 1 });
      expect((await store.attempts(TEAM, webhookId, id)).map((a) => a.http_status_code)).toEqual([200]);
    }
  };
  return { rx, queue, config, dispatcher, burst, deliveredOnce };
}

describe('deliveries to an endpoint at its cap', () => {
  it.each([1, 2])(
    'cap %i: a burst is parked, woken as slots free and delivered each once, in a bounded number of Redis commands per delivery',
    async (cap) => {
      let inFlight = 0;
      let most = 0;
      let letFirstGo!: () => void;
      const firstHeld = new Promise<void>((r) => (letFirstGo = r));
      // the first `cap` requests are held until the rest are parked; every later one takes SLOW_MS
      const s = await setup((n) => {
        most = Math.max(most, ++inFlight);
        const answered = n <= cap ? firstHeld : new Promise((r) => setTimeout(r, SLOW_MS));
        return { status: 200, until: answered.then(() => void inFlight--) };
      });
      const dispatcher = await s.dispatcher(cap);
      try {
        const ids = await s.burst();
        // the first attempts beyond the cap waited their moment for a slot, then were queued; each
        // job fetched found the endpoint full and was parked
        const parkedCount = BURST - cap;
        await waitUntil(async () => (await s.queue.queue.getJobCounts('delayed')).delayed === parkedCount, {
          message: `${parkedCount} deliveries parked`,
        });
        await waitUntil(() => s.rx.requests.length === cap, { message: `${cap} first attempts in flight` });
        for (const job of await s.queue.queue.getJobs(['delayed'])) {
          // nothing waits forever: a parked job comes back by itself after the lock's duration,
          // when a dead dispatcher's running jobs do (the e2e kill -9 test: parked ones too)
          expect(job.delay).toBeGreaterThan(0);
          expect(job.delay).toBeLessThanOrEqual(s.config(cap).WEBHOOK_LOCK_DURATION_MS);
          expect(job.attemptsMade).toBe(0);
        }
        const before = await commandsProcessed();
        letFirstGo();
        await s.rx.waitFor(BURST);
        const perDelivery = ((await commandsProcessed()) - before) / parkedCount;
        // Per parked delivery, from the first slot freed to its request: one wake-up (promote),
        // BullMQ's fetch (the marker's BZPOPMIN/ZPOPMIN, moveToActive), the attempt's start and
        // record scripts and the job's moveToFinished — 5–6 script calls, 54–65 commands measured
        // (INFO commandstats), plus the process's own rounds meanwhile (a blocking stream read a
        // second). A poll of every waiting job each 50–100 ms (move to delayed, promote, fetch)
        // measured 189–308 a delivery here, and more the longer the endpoint takes.
        expect(perDelivery).toBeLessThan(90);
        await s.deliveredOnce(ids);
        expect(most).toBeLessThanOrEqual(cap);
        expect(await s.queue.queue.getJobCounts('delayed', 'wait', 'active')).toEqual({
          delayed: 0,
          wait: 0,
          active: 0,
        });
      } finally {
        letFirstGo();
        await dispatcher.close();
        await s.queue.close();
        await s.rx.stop();
      }
    },
  );

  it('a dispatcher that closes wakes its parked jobs at once: another delivers them, each once', async () => {
    let letFirstGo!: () => void;
    const firstHeld = new Promise<void>((r) => (letFirstGo = r));
    const s = await setup((n) => ({ status: 200, ...(n === 1 && { until: firstHeld }) }));
    const a = await s.dispatcher(1);
    let aClosed = false;
    let b: Awaited<ReturnType<typeof s.dispatcher>> | undefined;
    try {
      const ids = await s.burst();
      await waitUntil(async () => (await s.queue.queue.getJobCounts('delayed')).delayed === BURST - 1, {
        message: 'all but the first parked',
      });
      // the other dispatcher has room for all of them: it parks none itself
      b = await s.dispatcher(BURST);
      const closing = a.close(); // waits for its first attempt in flight
      letFirstGo();
      await closing;
      aClosed = true;
      // every job a parked is due now, not when its longest park runs out
      expect((await s.queue.queue.getJobCounts('delayed')).delayed).toBe(0);
      await s.deliveredOnce(ids);
    } finally {
      letFirstGo();
      if (!aClosed) await a.close();
      await b?.close();
      await s.queue.close();
      await s.rx.stop();
    }
  });
});
