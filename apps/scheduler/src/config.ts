import { dataEnv, loadConfig, logEnv, metricsEnv, redisEnv } from '@petrel/config';
import { z } from '@petrel/config';

export const schedulerConfigShape = {
  ...redisEnv,
  ...logEnv,
  ...metricsEnv,
  ...dataEnv,
  /** How often housekeeping runs, in seconds. */
  HOUSEKEEPING_INTERVAL_S: z.coerce.number().int().min(1).default(60),
};

export type SchedulerConfig = ReturnType<typeof loadSchedulerConfig>;

export function loadSchedulerConfig(env: Record<string, string | undefined> = process.env) {
  return loadConfig(schedulerConfigShape, env);
}
