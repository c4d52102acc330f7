/**
 * The send workers of one process: a BullMQ Worker per lane (transactional, broadcast) sharing
 * one pooled SMTP transport. Retries use the `smtp-retry` backoff strategy: the configured ladder
 * with jitter, honouring "try again in N seconds" hints.
 */
import { EmailsStore, Keys, TemplatesStore, createRedis, pingRedis } from '@petrel/store';
import { createSendWorker, type Worker } from '@petrel/queue';
import {
  createSmtpSender,
  computeRetryDelay,
  DEFAULT_RETRY_JITTER,
  DEFAULT_RETRY_SCHEDULE_S,
} from '@petrel/mailer';
import { log, logConnectionError, metrics } from '@petrel/observability';
import type { SendJob } from '@petrel/contracts';
import { deliverEmailProcessor, SoftFailError, type ContentResolver } from './deliver-email.processor.js';
import type { WorkerConfig } from './config.js';
import { renderTemplateResolver } from './render-template.resolver.js';

export interface WorkerHandle {
  workers: Worker<SendJob>[];
  ready(): Promise<boolean>;
  close(): Promise<void>;
}

export interface WorkerContext {
  redis: ReturnType<typeof createRedis>;
  keys: Keys;
  templates: TemplatesStore;
}

export interface WorkerExtensions {
  /** Replaces the default resolver (templates: `renderTemplateResolver`). */
  resolveContent?: (ctx: WorkerContext) => ContentResolver;
}

export async function startWorker(config: WorkerConfig, ext: WorkerExtensions = {}): Promise<WorkerHandle> {
  if (!config.REDIS_URL) throw new Error('REDIS_URL is required to start the worker');
  if (!config.SMTP_URL) throw new Error('SMTP_URL is required to start the worker');
  const redis = createRedis(
    config.REDIS_URL,
    'command',
    'petrel-worker',
    logConnectionError('petrel-worker'),
  );
  const bullConnection = createRedis(
    config.REDIS_URL,
    'blocking',
    'petrel-worker-bull',
    logConnectionError('petrel-worker-bull'),
  );
  const keys = new Keys(config.REDIS_KEY_PREFIX);
  const emails = new EmailsStore(redis, keys, config.EMAIL_RETENTION_DAYS * 86_400_000);
  const sender = createSmtpSender({
    url: config.SMTP_URL,
    poolSize: config.SMTP_POOL_SIZE,
    connectionTimeoutMs: config.SMTP_CONNECTION_TIMEOUT_MS,
    socketTimeoutMs: config.SMTP_SOCKET_TIMEOUT_MS,
  });
  const schedule = config.RETRY_SCHEDULE_S
    ? config.RETRY_SCHEDULE_S.split(',').map(Number)
    : [...DEFAULT_RETRY_SCHEDULE_S];
  const retentionMs = config.EMAIL_RETENTION_DAYS * 86_400_000;
  const templates = new TemplatesStore(redis, keys, retentionMs);
  const resolveContent = (ext.resolveContent ?? ((ctx) => renderTemplateResolver(ctx.templates)))({
    redis,
    keys,
    templates,
  });

  const workers = (['send', 'broadcast'] as const).map((lane) => {
    const w = createSendWorker(
      lane,
      deliverEmailProcessor({
        emails,
        send: (m) => sender.send(m),
        lane,
        retries: schedule.length,
        resolveContent,
      }),
      {
        connection: bullConnection,
        prefix: `${config.REDIS_KEY_PREFIX}:bull`,
        concurrency: config.WORKER_CONCURRENCY,
        lockDuration: config.WORKER_LOCK_DURATION_MS,
        stalledInterval: config.WORKER_STALLED_INTERVAL_MS,
        maxStalledCount: config.WORKER_MAX_STALLED_COUNT,
        ...(config.WORKER_SEND_RATE > 0 ? { limiter: { max: config.WORKER_SEND_RATE, duration: 1000 } } : {}),
        settings: {
          backoffStrategy: (attemptsMade: number, _type?: string, err?: Error) => {
            const hint = err instanceof SoftFailError ? err.retryAfterMs : undefined;
            // attemptsMade counts the attempt that just failed (1 after the first failure).
            const delay = computeRetryDelay(attemptsMade, schedule, {
              scale: config.RETRY_TIME_SCALE,
              jitter: DEFAULT_RETRY_JITTER,
              ...(hint !== undefined ? { retryAfterMs: hint } : {}),
            });
            return delay ?? 0;
          },
        },
      },
    );
    w.on('failed', (job, err) => {
      if (!(err instanceof SoftFailError))
        log().warn({ jobId: job?.id, err: err.message }, 'send job failed');
    });
    w.on('completed', () => metrics.jobsProcessed().inc({ queue: w.name, result: 'completed' }));
    w.on('error', (err) => log().error({ err }, 'worker error'));
    w.on('stalled', (jobId) => {
      metrics.jobsProcessed().inc({ queue: w.name, result: 'stalled' });
      log().warn(
        { jobId },
        'send job stalled (its worker stopped without finishing it); put back to be retried',
      );
    });
    return w;
  });
  log().info({ concurrency: config.WORKER_CONCURRENCY, pool: config.SMTP_POOL_SIZE }, 'send workers started');

  return {
    workers,
    ready: () => pingRedis(redis),
    async close() {
      // Stop taking jobs and let in-flight sends finish, then close the transport and Redis.
      await Promise.all(workers.map((w) => w.close()));
      await sender.close();
      await Promise.all([redis.quit().catch(() => undefined), bullConnection.quit().catch(() => undefined)]);
    },
  };
}
