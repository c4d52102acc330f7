import { dataEnv, loadConfig, logEnv, metricsEnv, queueEnv, redisEnv } from '@petrel/config';
import { z } from '@petrel/config';

export const schedulerConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv('scheduler'),
  ...dataEnv,
  ...queueEnv,
  /** How often housekeeping runs, in seconds. */
  HOUSEKEEPING_INTERVAL_S: z.coerce.number().int().min(1).default(60),
  /**
   * How old an outbox entry must be before the outbox relay enqueues its job (ms): longer than an
   * acceptance takes, so the relay only finishes interrupted ones. The relay runs every half of it.
   */
  OUTBOX_GRACE_MS: z.coerce.number().int().min(100).default(30_000),
};

export type SchedulerConfig = ReturnType<typeof loadSchedulerConfig>;

export function loadSchedulerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(schedulerConfigShape, env);
}
