/**
 * The webhook dispatcher's components on a runtime: the stream consumer (events → event-log
 * entries → first attempts, signed POSTs made at once), and the delivery worker (the jobs of
 * every other attempt), over four connections: commands of the stream side (the process's),
 * commands of the deliveries, BullMQ's blocking one, and one for blocking stream reads. Any number
 * of dispatcher processes may run at once: the consumer group shares the streams' entries among
 * them and BullMQ their jobs.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { DEFAULT_WEBHOOK_RETRY_SCHEDULE_S, scheduleMs, type HostResolver } from '@petrel/core';
import { partStart, systemHostResolver, type Component, type Runtime } from '@petrel/runtime';
import { metrics } from '@petrel/observability';
import type { WebhooksConfig } from './config.js';
import { createHttpSender } from './http-sender.js';
import { startStreamConsumer } from './stream-consumer.js';
import { startDeliveryWorker } from './delivery-worker.js';
import { DirectDeliveries } from './direct-deliveries.js';
import { EndpointSlots } from './endpoint-slots.js';

export interface WebhooksExtensions {
  /** Resolves endpoint host names (default: the system resolver); tests inject one. */
  resolver?: HostResolver;
  /** Called with every address a delivery connects to. */
  onConnect?: (target: { host: string; address: string }) => void;
}

export type WebhookDispatcher = Component;

/**
 * Stream entries read per team per round: large enough that a backlog drains in few rounds (each
 * round is five commands whatever its size), small enough that one team's burst cannot hold the
 * others for long.
 */
const STREAM_BATCH = 500;

/** How often the lag gauges are refreshed. */
const GAUGE_INTERVAL_MS = 5_000;

/** The dispatcher on the all-in-one's runtime (`shared`), or on one of its own (partStart). */
export const startWebhookDispatcher = partStart(
  'webhooks',
  'the webhook dispatcher',
  async (config: WebhooksConfig, rt: Runtime, ext: WebhooksExtensions) => {
    const store = rt.stores.webhooks;
    // attempts are recorded on a connection of their own, so a stream batch's large writes
    // (event-log entries, job adds) never queue in front of an attempt's small script
    const deliveryStore = rt.over('webhooks-delivery').webhooks;
    const stream = rt.stores.webhookStream;
    // blocking stream reads (one team) wait on a connection of their own
    const blockingStream = rt.over('webhooks-stream', 'blocking').webhookStream;
    const queue = rt.queues.webhookDelivery;
    await queue.ready();
    const scale = config.WEBHOOK_RETRY_TIME_SCALE;
    const scheduleS =
      config.WEBHOOK_RETRY_SCHEDULE?.split(',').map(Number) ?? DEFAULT_WEBHOOK_RETRY_SCHEDULE_S;
    const sender = createHttpSender({
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
      resolve: ext.resolver ?? systemHostResolver,
      timeoutMs: Math.max(100, Math.round(config.WEBHOOK_TIMEOUT_MS * scale)),
      connectionsPerOrigin: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      ...(ext.onConnect && { onConnect: ext.onConnect }),
    });
    const policy = {
      scheduleMs: scheduleMs(scheduleS, scale),
      disableAfterMs: Math.round(config.WEBHOOK_DISABLE_AFTER_S * 1000 * scale),
      retryAfterScale: scale,
    };
    const slots = new EndpointSlots(config.WEBHOOK_ENDPOINT_CONCURRENCY);
    const worker = startDeliveryWorker(
      { log: deliveryStore, sender, policy, slots },
      {
        connection: rt.connection('bull'),
        prefix: rt.keys.bullPrefix(),
        concurrency: config.WEBHOOK_CONCURRENCY,
        lockDurationMs: config.WEBHOOK_LOCK_DURATION_MS,
        stalledIntervalMs: config.WEBHOOK_STALLED_INTERVAL_MS,
      },
    );
    const direct = new DirectDeliveries({
      webhooks: store,
      log: deliveryStore,
      sender,
      queue,
      policy,
      slots,
      concurrency: config.WEBHOOK_CONCURRENCY,
      ack: (teamId, entryIds) => stream.ack(teamId, entryIds),
    });
    const consumer = startStreamConsumer({
      stream,
      blockingStream,
      store,
      queue,
      direct,
      consumer: `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`,
      batch: STREAM_BATCH,
      claimIdleMs: config.WEBHOOK_CLAIM_IDLE_MS,
    });

    const sampleGauges = async () => {
      metrics.webhookQueueLag().set({ stage: 'queue' }, await queue.backlog());
      let lag = 0;
      for (const teamId of await store.teamsWithWebhooks()) lag += await stream.lag(teamId);
      metrics.webhookQueueLag().set({ stage: 'stream' }, lag);
    };
    // sampled once now, so the gauges exist from start-up, then every GAUGE_INTERVAL_MS
    await sampleGauges().catch(() => undefined);
    const gauges = setInterval(() => void sampleGauges().catch(() => undefined), GAUGE_INTERVAL_MS);
    gauges.unref();

    return {
      async close() {
        clearInterval(gauges);
        const stopping = consumer.stop();
        rt.connection('webhooks-stream').disconnect(); // ends a blocking read at once
        await stopping;
        await direct.drain();
        await worker.close();
        await sender.close();
      },
    };
  },
);
