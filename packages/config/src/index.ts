/**
 * Environment fragments. Each app composes the fragments it needs into one zod schema in its
 * own `config.ts` and parses `process.env` once at start-up with `loadConfig`; no other file
 * reads the environment.
 */
import { z } from 'zod';

const bool = z
  .enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off', ''])
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v));
const port = z.coerce.number().int().min(0).max(65_535);

export const redisEnv = {
  /** Redis connection URL. Unset in all-in-one mode: an embedded redis-server is started. */
  REDIS_URL: z.string().url().optional(),
  /** Prefix of every Petrel key, so tests and tenants of one Redis can be kept apart. */
  REDIS_KEY_PREFIX: z
    .string()
    .regex(/^[a-zA-Z0-9_-]+$/)
    .default('pt'),
};

export const logEnv = {
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
};

export const metricsEnv = {
  /** Port of the health + /metrics server of this process; 0 picks a free port. */
  METRICS_PORT: port.optional(),
};

export const apiEnv = {
  PORT: port.default(3000),
  /** Base of links put into emails; defaults to http://localhost:PORT. */
  PUBLIC_URL: z.string().url().optional(),
  /** When set, a full_access key with exactly this token exists for the default team. */
  BOOTSTRAP_API_KEY: z.string().min(8).optional(),
  /** Largest accepted request body, in bytes (attachments travel base64 inside it). */
  API_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(60 * 1024 * 1024),
  /** Largest accepted body on the batch endpoint, in bytes. */
  API_BATCH_BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(5 * 1024 * 1024),
  /**
   * How long an Idempotency-Key stays claimed by a request that has not finished. A request whose
   * API process died keeps its key locked this long; then a retry takes the claim over and
   * recomputes the same ids. Must exceed the slowest request (remote attachments: 15 s each).
   */
  IDEMPOTENCY_LOCK_MS: z.coerce.number().int().min(1_000).default(60_000),
};

export const smtpEnv = {
  /** Relay for outgoing mail, e.g. smtp://user:pass@relay:587. Unset in all-in-one mode: a local capture server. */
  SMTP_URL: z.string().url().optional(),
  SMTP_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(20),
  SMTP_CONNECTION_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  SMTP_SOCKET_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
};

export const workerEnv = {
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(50),
  /** Emails per second per lane across all worker processes (BullMQ's queue-wide limiter; 0 = unlimited). */
  WORKER_SEND_RATE: z.coerce.number().int().min(0).default(0),
  /**
   * Backoff ladder for temporary SMTP failures: seconds between attempts, comma separated.
   * Unset: the mailer's default ladder, 24 h in total (DEFAULT_RETRY_SCHEDULE_S).
   */
  RETRY_SCHEDULE_S: z
    .string()
    .regex(/^\d+(,\d+)*$/, 'must be comma-separated whole seconds, e.g. 60,300,900')
    .optional(),
  /** Multiplier applied to retry delays (tests compress time with e.g. 0.001). */
  RETRY_TIME_SCALE: z.coerce.number().positive().default(1),
  /**
   * How long a worker holds a job's lock before it must renew it. A job whose worker died (kill -9,
   * power loss) is taken over by another worker once its lock has expired.
   */
  WORKER_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(30_000),
  /** How often each worker looks for jobs whose lock expired (stalled) and puts them back. */
  WORKER_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(30_000),
  /**
   * How many times one job may stall (its worker died mid-send) and be put back before it is
   * failed. Each stall can mean one duplicate send (at-least-once); 2 survives two worker crashes.
   */
  WORKER_MAX_STALLED_COUNT: z.coerce.number().int().min(0).max(100).default(2),
};

export const smtpServerEnv = {
  /** SMTP submission port (AUTH with an API key); 0 disables. */
  SMTP_SUBMISSION_PORT: port.default(0),
  /** Inbound MX port; 0 disables. */
  SMTP_INBOUND_PORT: port.default(0),
};

export const webhookEnv = {
  /** Allow webhook (and attachment) URLs on loopback / private networks. Off in production. */
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: bool.default(false),
};

export const dataEnv = {
  /** Directory for the embedded redis-server and captured mail (all-in-one mode). */
  DATA_DIR: z.string().default('.data'),
  /** How long email records and their timelines are kept, in days. */
  EMAIL_RETENTION_DAYS: z.coerce.number().int().min(1).default(30),
};

/** Parse `env` against `shape`, or throw one readable message listing every bad variable. */
export function loadConfig<S extends z.ZodRawShape>(
  shape: S,
  env: Record<string, string | undefined> = process.env,
): z.infer<z.ZodObject<S>> {
  const result = z.object(shape).safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return result.data;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export { z };
