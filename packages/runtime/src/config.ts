import {
  dataEnv,
  loadConfig,
  logEnv,
  metricsEnv,
  redisEnv,
  type EnvOf,
  type METRICS_PORTS,
  type z,
} from '@petrel/config';

/**
 * What the runtime reads of a process's parsed configuration. Every app's config satisfies it:
 * the fields only some apps parse are optional here, and a store that needs one of them asks
 * for it with {@link need}, so a process whose config lacks the field fails at start-up with its
 * name instead of running on a default chosen in a second place.
 */
export interface RuntimeConfig {
  REDIS_URL?: string | undefined;
  REDIS_KEY_PREFIX: string;
  EMAIL_RETENTION_DAYS: number;
  DASHBOARD_STATS_RETENTION_DAYS: number;
  QUEUE_SHARDS?: number;
  QUEUE_SHARDS_PREVIOUS?: number | 'unsharded' | undefined;
  INBOUND_RETENTION_DAYS?: number | undefined;
  IDEMPOTENCY_LOCK_MS?: number;
  AUTOMATION_RUN_RETENTION_DAYS?: number;
  DOMAIN_KEY_SECRET?: string | undefined;
  DOMAIN_VERIFY_INTERVAL_S?: number;
  UNSUBSCRIBE_SECRET?: string | undefined;
  DNS_SERVERS?: string[] | undefined;
  /** The TLS-RPT report day, in seconds (direct delivery's counters, the scheduler's reports). */
  TLS_RPT_DAY_S?: number;
  // the acceptance stages (POST /emails, SMTP submission, the workers' emails)
  ENFORCE_VERIFIED_DOMAINS?: boolean;
  DAILY_QUOTA?: number;
  MAX_RECIPIENTS_PER_EMAIL?: number | undefined;
  REFUSE_NON_MAIL_DOMAINS?: boolean;
  SIMULATOR_DOMAIN?: string | undefined;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS?: boolean;
}

/** `config[field]`, or a start-up error naming the field this process's config does not parse. */
export function need<K extends keyof RuntimeConfig>(
  config: RuntimeConfig,
  field: K,
): NonNullable<RuntimeConfig[K]> {
  const value = config[field];
  if (value === undefined || value === null)
    throw new Error(`${field} is not part of this process's configuration, but a part it started needs it`);
  return value as NonNullable<RuntimeConfig[K]>;
}

/**
 * The variables every process parses (what `ProcessConfig` and `RuntimeConfig` read
 * of all of them): Redis, the log level, its health + /metrics server on `app`'s default port,
 * and the data directory and retention. An app's config shape spreads it first.
 */
export function processEnv(app: keyof typeof METRICS_PORTS) {
  return { ...redisEnv, ...logEnv, ...metricsEnv(app), ...dataEnv };
}

/** An app's `loadXConfig(env = process.env)`: its shape parsed with `loadConfig`. */
export function configLoader<S extends z.ZodRawShape>(shape: S) {
  return (env: Record<string, string | undefined> = process.env): EnvOf<S> => loadConfig(shape, env);
}
