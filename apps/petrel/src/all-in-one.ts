/**
 * All-in-one mode: every app in one Node process on embedded defaults — a local redis-server
 * when REDIS_URL is unset, a local capture SMTP server when SMTP_URL is unset — for a single
 * machine or a first look. Production runs each app as its own process (apps/<app>/dist/main.js).
 */
import { startApi, type ApiExtensions } from '@petrel/api';
import { startWorker, type WorkerExtensions } from '@petrel/worker';
import { startScheduler } from '@petrel/scheduler';
import { startSmtp } from '@petrel/smtp';
import { startWebhookDispatcher, type WebhooksExtensions } from '@petrel/webhooks';
import { enableDefaultMetrics, log, startHealthServer, type Lifecycle } from '@petrel/observability';
import { openRuntime } from '@petrel/runtime';
import { startEmbeddedRedis } from './embedded-redis.js';
import { startCaptureSmtp } from './capture-smtp.js';
import type { PetrelConfig } from './config.js';

export interface AllInOne {
  apiPort: number;
  metricsPort: number;
  redisUrl: string;
  smtpUrl: string;
  /** Ports of the SMTP servers by name (`submission`, `submission-tls`, …). */
  smtpPorts: Record<string, number>;
  /** The first API key, when this start created it. */
  firstKey: string | null;
  /** The API's Express app (its router lists every route). */
  apiApp: unknown;
}

export async function startAllInOne(
  config: PetrelConfig,
  lifecycle: Lifecycle,
  ext: { api?: ApiExtensions; worker?: WorkerExtensions; webhooks?: WebhooksExtensions } = {},
): Promise<AllInOne> {
  enableDefaultMetrics('petrel');
  let redisUrl = config.REDIS_URL;
  if (!redisUrl) {
    const redis = await startEmbeddedRedis({ dataDir: config.DATA_DIR, port: config.EMBEDDED_REDIS_PORT });
    if (redis.owned) lifecycle.onStop('embedded-redis', () => redis.stop());
    redisUrl = redis.url;
  }
  let smtpUrl = config.SMTP_URL;
  // direct delivery needs no relay: nothing to capture
  if (!smtpUrl && config.DELIVERY_MODE !== 'direct') {
    const capture = await startCaptureSmtp({ dataDir: config.DATA_DIR, port: config.CAPTURE_SMTP_PORT });
    lifecycle.onStop('capture-smtp', () => capture.stop());
    smtpUrl = capture.url;
    log().info(
      { url: capture.url, dir: capture.dir },
      `SMTP_URL is unset: mail is captured locally as .eml files in ${capture.dir} (open them with any mail client, or: ls ${capture.dir})`,
    );
  }
  const cfg = { ...config, REDIS_URL: redisUrl, SMTP_URL: smtpUrl };
  // One runtime for every part: one set of connections, stores, queues and secrets, closed after
  // the parts (the lifecycle stops them in reverse order).
  const rt = openRuntime(cfg, 'all-in-one');
  lifecycle.onStop('runtime', () => rt.close());

  const api = await startApi(cfg, ext.api, rt);
  lifecycle.onStop('api', () => api.close());
  // Unsubscribe links the worker writes point at this API unless a public URL is configured.
  const worker = await startWorker(
    { ...cfg, PUBLIC_URL: cfg.PUBLIC_URL ?? `http://localhost:${api.port}` },
    ext.worker,
    rt,
  );
  lifecycle.onStop('worker', () => worker.close());
  const scheduler = await startScheduler(cfg, {}, rt);
  lifecycle.onStop('scheduler', () => scheduler.close());
  // The webhook dispatcher: the team event streams → signed deliveries.
  const webhooks = await startWebhookDispatcher(cfg, ext.webhooks, rt);
  lifecycle.onStop('webhooks', () => webhooks.close());
  // SMTP submission (and inbound): SMTP_SUBMISSION_PORT etc., or their documented defaults.
  const smtp = await startSmtp(cfg, {}, rt);
  lifecycle.onStop('smtp', () => smtp.close());

  let firstKey: string | null = null;
  if (!config.BOOTSTRAP_API_KEY && (await api.apiKeys.countKeys()) === 0) {
    firstKey = (await api.apiKeys.create(api.defaultTeamId, { name: 'first key', permission: 'full_access' }))
      .token;
  }

  // Stopped first: health goes away before the components it reports on.
  const health = await startHealthServer({
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    timeouts: config,
    ready: async () =>
      (await Promise.all([worker.ready(), scheduler.ready(), webhooks.ready()])).every(Boolean),
  });
  lifecycle.onStop('health', () => health.close());
  return {
    apiPort: api.port,
    metricsPort: health.port,
    redisUrl,
    smtpUrl: smtpUrl ?? 'direct',
    smtpPorts: smtp.ports,
    firstKey,
    apiApp: api.app,
  };
}
