import {
  deliveryEnv,
  directCareEnv,
  dnsEnv,
  domainsEnv,
  fanoutPacingEnv,
  queueEnv,
  watchdogEnv,
  webhookEnv,
  workerEnv,
  z,
} from '@petrel/config';
import { configLoader, processEnv } from '@petrel/runtime';

export const schedulerConfigShape = {
  ...processEnv('scheduler'),
  ...queueEnv,
  ...dnsEnv,
  ...domainsEnv,
  ...watchdogEnv,
  ...fanoutPacingEnv,
  // the daily TLS-RPT reports (tls-reports.ts): TLS_RPT_*, the test-only MTA_STS_CA_FILE, and
  // the EHLO name as the reports' submitter
  ...directCareEnv,
  DIRECT_HELO_NAME: deliveryEnv.DIRECT_HELO_NAME,
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: webhookEnv.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
  /** The workers' retry ladder and time scale: the watchdog leaves an email alone within them. */
  RETRY_SCHEDULE_S: workerEnv.RETRY_SCHEDULE_S,
  RETRY_TIME_SCALE: workerEnv.RETRY_TIME_SCALE,
  /** How often housekeeping runs, in seconds. */
  HOUSEKEEPING_INTERVAL_S: z.coerce.number().int().min(1).default(60),
  /**
   * How often the queue and Redis memory gauges are sampled, in seconds: the queue depth an
   * autoscaler reads is at most this old (plus the scrape interval).
   */
  METRICS_SAMPLE_INTERVAL_S: z.coerce.number().int().min(1).default(15),
  /**
   * How old an outbox entry must be before the outbox relay enqueues its job (ms): longer than an
   * acceptance takes, so the relay only finishes interrupted ones. The relay runs every half of it.
   */
  OUTBOX_GRACE_MS: z.coerce.number().int().min(100).default(30_000),
  /** Broadcast fan-outs one scheduler process runs at once (each streams its segment page by page). */
  FANOUT_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /**
   * Lock of a running fan-out job (ms), renewed every half of it: a killed scheduler's fan-out is
   * taken over once it expires — within FANOUT_LOCK_DURATION_MS + FANOUT_STALLED_INTERVAL_MS.
   */
  FANOUT_LOCK_DURATION_MS: z.coerce.number().int().min(1_000).default(10_000),
  /** How often a scheduler looks for fan-outs whose scheduler died (ms). */
  FANOUT_STALLED_INTERVAL_MS: z.coerce.number().int().min(500).default(5_000),
};

export const loadSchedulerConfig = configLoader(schedulerConfigShape);
export type SchedulerConfig = ReturnType<typeof loadSchedulerConfig>;
